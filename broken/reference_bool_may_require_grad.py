"""Breaks REQ-2 on the reference engine. Assigning requires_grad = True checks for integer dtypes only,
so a bool tensor is accepted."""

from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_set = Tensor.requires_grad.fset


def _integers_refused(self, flag):
    if self.dtype.name == "bool" and self.is_leaf:
        self._requires_grad = bool(flag)
    else:
        _set(self, flag)


Tensor.requires_grad = property(Tensor.requires_grad.fget, _integers_refused)
