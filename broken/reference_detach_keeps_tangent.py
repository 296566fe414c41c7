"""Breaks FWD-8 on the reference engine. detach() copies the tangent onto the alias it returns:
the alias is cut from the graph, but forward mode still flows through it."""

from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


_detach = Tensor.detach


def _detach_keeping_tangent(self):
    alias = _detach(self)
    alias._tangent = self._tangent
    return alias


Tensor.detach = _detach_keeping_tangent
