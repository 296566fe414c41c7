"""Breaks LEAF-5 and BC-3 on the reference engine. The first gradient of a leaf is stored in float32
whatever the leaf's dtype."""

import numpy as np

import autograd_conformance.reference.graph
from autograd_conformance import reference
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy



def _float32(original):
    def accumulate_into(tensor, grad):
        first = tensor._grad is None
        result = original(tensor, grad)
        if first and tensor._grad is not None and tensor._grad._array.dtype == np.float64:
            tensor._grad._array = tensor._grad._array.astype(np.float32)
        return result
    return accumulate_into


_reference.replace(reference.graph, "accumulate_into", _float32)
