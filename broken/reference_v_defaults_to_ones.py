"""Breaks FUNC-3 on the reference engine. A v left out is taken as ones of the shape it would have,
for any number of elements, instead of raising where it is not one number."""

import autograd_conformance.reference.autograd.functional as functional
from autograd_conformance import reference
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _ones_for_none(vectors):
    def vectors_or_ones(v, like, like_is_tuple, whose, create_graph):
        if v is None:
            return tuple(reference.ones_like(t) for t in like)
        return vectors(v, like, like_is_tuple, whose, create_graph)
    return vectors_or_ones


_reference.replace(functional, "_vectors", _ones_for_none)
