"""Breaks LAYOUT-1 on the reference engine. A leaf's first .grad always gets the leaf's strides,
as if every leaf were non-overlapping and dense: a narrowed leaf's gradient has gaps, and an
expanded leaf's gradient overlaps itself (its elements alias one another)."""

import numpy as np
from numpy.lib.stride_tricks import as_strided

import autograd_conformance.reference.layout as layout
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _leaf_strides(zeros_for_grad):
    def zeros_with_leaf_strides(array):
        span = 1 + sum((size - 1) * stride for size, stride in zip(array.shape, layout.strides(array)))
        return as_strided(np.zeros(span, array.dtype), array.shape, array.strides)
    return zeros_with_leaf_strides


_reference.replace(layout, "zeros_for_grad", _leaf_strides)
