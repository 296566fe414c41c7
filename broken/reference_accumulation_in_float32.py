"""Breaks ACC-1 on the reference engine, almost: a second gradient is added into a float64 .grad
through float32 (the sum is rounded to float32 and stored back as float64), as an engine that keeps
a float32 accumulation buffer would. The dtype stays right; only the precision is lost."""

import numpy as np

from autograd_conformance import reference
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _through_float32(original):
    def accumulate_into(tensor, grad):
        existing = tensor._grad is not None and not isinstance(grad, reference.Tensor)
        result = original(tensor, grad)
        if existing:
            array = tensor._grad._array
            array[...] = array.astype(np.float32).astype(array.dtype)
        return result
    return accumulate_into


_reference.replace(reference.graph, "accumulate_into", _through_float32)
