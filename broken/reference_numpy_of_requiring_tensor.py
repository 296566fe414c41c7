"""Breaks MISC-7 on the reference engine. numpy() returns the values of a tensor that requires grad
instead of refusing it, silently leaving autograd."""

from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

Tensor.numpy = lambda self: self._array
