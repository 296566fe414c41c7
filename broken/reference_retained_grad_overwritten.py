"""Breaks LEAF-10 on the reference engine. A retained non-leaf's .grad holds the last backward
pass's gradient: each pass replaces it instead of adding to it."""

import autograd_conformance.reference.walk as walk
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _overwriting(store_retained):
    def store_latest(tensor, grad):
        tensor._grad = None
        store_retained(tensor, grad)
    return store_latest


_reference.replace(walk, "_store_retained", _overwriting)
