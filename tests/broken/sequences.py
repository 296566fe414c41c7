"""Mutants of the catalog's chapter 'sequences' (suites/test_sequences.py): Sequences of autograd
calls and Python control flow."""

from autograd_conformance.reference import conversions
from tests.broken.registry import mutant


@mutant("SEQ-2")
def reference_item_cuts_the_history():
    """item() on a non-leaf that requires grad makes it a leaf that requires none, as a lazy engine
    that replaces a tensor's history by its computed buffer when a value is read: a branch on
    s.item() that then uses s gets no gradient through it."""
    _item = conversions.Conversions.item

    def _item_cutting_history(self):
        if self.grad_fn is not None:
            self.grad_fn, self._requires_grad = None, False
        return _item(self)

    conversions.Conversions.item = _item_cutting_history
