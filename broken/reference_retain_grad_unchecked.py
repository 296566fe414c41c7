"""Breaks LEAF-9 on the reference engine. retain_grad() on a tensor that does not require grad is
silently accepted instead of raising."""

from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_retain_grad = Tensor.retain_grad


def _unchecked(self):
    if self.requires_grad:
        _retain_grad(self)


Tensor.retain_grad = _unchecked
