"""Breaks FWD-10 on the reference engine. make_dual returns a copy of the primal that carries the
tangent, a new leaf without grad: tangents are right, but no gradient reaches the primal."""

import autograd_conformance.reference.autograd.forward_ad as forward_ad
from autograd_conformance.reference import dual
from autograd_conformance.reference.tensor import make
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _copying(make_dual):
    def make_dual_copy(tensor, tangent, *, level=None):
        make_dual(tensor, tangent, level=level)  # its checks
        copy = make(tensor._array.copy())
        dual.set_tangent(copy, tangent)
        return copy
    return make_dual_copy


_reference.replace(forward_ad, "make_dual", _copying)
