"""Breaks ACC-7 on the reference engine. Tensor.data is a detached copy of the values rather than
an alias of the storage: x.grad.data.zero_() zeros the copy and leaves x.grad as it was."""

from autograd_conformance.reference.tensor import Tensor, make
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _copied_data(self):
    return make(self._array.copy())


Tensor.data = property(_copied_data, Tensor.data.fset)
