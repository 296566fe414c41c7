"""Breaks REQ-3 on the reference engine. requires_grad_() checks the dtype whatever the flag, so
requires_grad_(False) on an integer tensor raises."""

from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_requires_grad_ = Tensor.requires_grad_


def _checked_always(self, requires_grad=True):
    if not self.is_floating_point():
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    return _requires_grad_(self, requires_grad)


Tensor.requires_grad_ = _checked_always
