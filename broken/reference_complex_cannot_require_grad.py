"""Breaks CPLX-1 on the reference engine. Only floating-point tensors may require grad: a
complex leaf with requires_grad=True, or requires_grad_(), raises like an integer one."""

import autograd_conformance.reference.creation as creation
from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

MESSAGE = "only Tensors of floating point dtype can require gradients"


def _floating_only(leaf):
    def floating_leaf(array, requires_grad):
        if requires_grad and array.dtype.kind == "c":
            raise RuntimeError(MESSAGE)
        return leaf(array, requires_grad)
    return floating_leaf


_requires_grad_ = Tensor.requires_grad_


def _requires_grad_floating_only(self, requires_grad=True):
    if requires_grad and self._array.dtype.kind == "c":
        raise RuntimeError(MESSAGE)
    return _requires_grad_(self, requires_grad)


_reference.replace(creation, "_leaf", _floating_only)
Tensor.requires_grad_ = _requires_grad_floating_only
