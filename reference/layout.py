"""Strides, and the layout of a leaf's first gradient (the autograd page's "Default gradient
layouts").

A tensor's elements are a NumPy array's, so its strides are the array's (counted in elements, as
torch counts them): transposes, `narrow` and `expand` give strided tensors, which `detach()`
keeps. When a leaf's `.grad` is first created (graph.accumulate_into), it gets the leaf's strides
if the leaf's elements are non-overlapping and dense (a permutation of a row-major block: BC-4),
and row-major strides otherwise (an expanded leaf, whose elements overlap, or a slice with gaps:
LAYOUT-1). Later passes add into that array in place, so its layout stays (LAYOUT-2).

This module imports nothing of the engine.
"""
import numpy as np


def strides(array):
    """The array's strides in elements."""
    return tuple(stride // array.itemsize for stride in array.strides)


def laid_out_as(array, target):
    """Whether `array` has `target`'s dtype and layout as torch's AccumulateGrad compares them
    before it keeps a gradient as it arrived (ACC-14): the same strides on every dim of size > 1,
    and no stride 0 on a dim of size 1."""
    return array.dtype == target.dtype and all(
        stride != 0 if size == 1 else stride == other
        for size, stride, other in zip(array.shape, array.strides, target.strides))


def non_overlapping_and_dense(array):
    """Whether the elements fill a block of memory exactly once: sorted by stride, each dim of
    size > 1 steps over exactly the dims before it (the size-1 dims' strides do not matter)."""
    expected = 1
    for stride, size in sorted((s, n) for s, n in zip(strides(array), array.shape) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def zeros_for_grad(array, dtype=None):
    """Zeros of `array`'s shape and dtype (or `dtype`, a leaf's grad_dtype), laid out as the first
    gradient of a leaf holding `array` must be: with its strides when it is non-overlapping and
    dense, else row-major."""
    dtype = array.dtype if dtype is None else dtype
    if not non_overlapping_and_dense(array):
        return np.zeros(array.shape, dtype)
    outermost_first = sorted(range(array.ndim), key=lambda dim: -array.strides[dim])
    block = np.zeros([array.shape[dim] for dim in outermost_first], dtype)
    return block.transpose(np.argsort(outermost_first))
