"""Breaks BC-4 on the reference engine. A leaf's first .grad is always created row-major, so a
transposed leaf gets a gradient whose strides differ from its own."""

import numpy as np

import autograd_conformance.reference.layout as layout
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _row_major(zeros_for_grad):
    def row_major_zeros(array):
        return np.zeros(array.shape, array.dtype)
    return row_major_zeros


_reference.replace(layout, "zeros_for_grad", _row_major)
