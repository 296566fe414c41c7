"""Breaks LEAF-7 on the reference engine. Reading .grad of a non-leaf that keeps none returns None
without the warning."""

from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

Tensor.grad = property(lambda self: self._grad, Tensor.grad.fset)
