"""Breaks FUNC-1 on the reference engine. vjp seeds its backward pass with ones of v's shape, the
implicit gradient of a sum, instead of v: it returns the gradient of sum(func(inputs))."""

import autograd_conformance.reference.autograd.functional as functional
from autograd_conformance import reference
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _with_ones(vjp):
    def vjp_of_the_sum(func, inputs, v=None, create_graph=False, strict=False):
        ones = None if v is None else (tuple(map(reference.ones_like, v)) if isinstance(v, tuple)
                                       else reference.ones_like(v))
        return vjp(func, inputs, ones, create_graph, strict)
    return vjp_of_the_sum


_reference.replace(functional, "vjp", _with_ones)
