"""Breaks ACC-5 on the reference engine. The first gradient that reaches a leaf is stored as it
arrived, without a copy: backward on the leaf itself keeps the caller's array as .grad, and the
operands of x + y share one array, so a later pass adds into the caller's tensor or into the
other leaf's .grad."""

import numpy as np

import autograd_conformance.reference.graph as graph
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _stolen(accumulate_into):
    def accumulate_without_copy(tensor, grad):
        if tensor._grad is None and isinstance(grad, np.ndarray) and grad.dtype == tensor._array.dtype \
                and grad.shape == tensor._array.shape:
            tensor._grad = graph.make(grad)
        else:
            accumulate_into(tensor, grad)
    return accumulate_without_copy


_reference.replace(graph, "accumulate_into", _stolen)
