"""Mutants of the catalog's chapter 'detach' (suites/test_detach.py): detach() and detach_():
stopping gradients."""

import torch

from tests.broken.registry import mutant


@mutant("DET-1")
def torch_detach_copies():
    """detach() returns a copy instead of a view sharing storage, so in-place changes to the
    detached tensor are not seen by the original."""
    _detach = torch._C.TensorBase.detach
    torch.Tensor.detach = lambda self: _detach(self).clone()


@mutant("DET-2", "DET-1")
def torch_detach_keeps_graph():
    """detach() returns an alias that stays in the graph (recorded as an identity op), so gradients
    flow through the "detached" branch."""
    def to_numpy(tensor):
        return torch._C.TensorBase.detach(tensor).cpu().numpy()

    torch.Tensor.detach = lambda self: self.view_as(self)
    return {"to_numpy": to_numpy}


@mutant("DET-3")
def torch_detach_is_data():
    """detach() returns `.data`: same storage, no graph, but its own version counter, so modifying
    a saved tensor through the alias goes unnoticed and backward computes with wrong values."""
    torch.Tensor.detach = lambda self: self.data


@mutant("DET-5")
def torch_detach_inplace_returns_copy():
    """detach_() returns a detached tensor but leaves the tensor itself unchanged (still a non-leaf
    with its grad_fn)."""
    torch.Tensor.detach_ = lambda self: self.detach()


@mutant("DET-6")
def torch_detach_inplace_allows_views():
    """detach_() on a view does not raise: it silently detaches a copy."""
    _detach_ = torch._C.TensorBase.detach_

    def _detach_inplace(self):
        if self._base is not None:
            return self.detach()
        return _detach_(self)

    torch.Tensor.detach_ = _detach_inplace


@mutant("DET-7")
def torch_detach_inplace_cuts_recorded_graph():
    """detach_() cuts the graph already recorded through the tensor (as an engine whose edges point
    at tensor objects and read their grad_fn at backward time): no gradient flows back through
    it any more."""
    _detach_ = torch._C.TensorBase.detach_

    def _detach_inplace(self):
        node = torch._C.TensorBase.grad_fn.__get__(self)
        if node is not None:
            node.register_prehook(lambda grad_outputs: tuple(
                None if g is None else torch.zeros_like(g) for g in grad_outputs))
        return _detach_(self)

    torch.Tensor.detach_ = _detach_inplace


@mutant("DET-8")
def torch_detach_inplace_keeps_leaf_flag():
    """detach_() on a leaf is a no-op: the leaf keeps requires_grad=True."""
    _detach_ = torch._C.TensorBase.detach_
    torch.Tensor.detach_ = lambda self: self if self.grad_fn is None else _detach_(self)


@mutant("DET-10")
def reference_only_first_saved_input_checked_for_detach():
    """A node notices that a saved input was detached in place only for the first tensor it
    saved: w / y, which saves w then y, computes on after y.detach_()."""
    from autograd_conformance.reference.graph import Node
    _save = Node.save

    def save(self, *values):
        _save(self, *values)
        self._nonleaf = self._nonleaf[:1] + (False,) * (len(self._nonleaf) - 1)

    Node.save = save
