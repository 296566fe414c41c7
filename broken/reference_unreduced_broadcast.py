"""Breaks LEAF-5 and BC-1 on the reference engine. The backward of binary ops forgets to sum a
broadcast gradient back to the input's shape (it only casts the dtype)."""

import numpy as np

import autograd_conformance.reference.ops.common
from autograd_conformance import reference
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy



def _cast_only(original):
    def sum_to(grad, meta):
        shape, dtype = meta
        if grad.ndim < len(shape) or grad.shape == shape:
            return original(grad, meta)
        return original(grad, (grad.shape, dtype))
    return sum_to


_reference.replace(reference.ops.common, "sum_to", _cast_only)
