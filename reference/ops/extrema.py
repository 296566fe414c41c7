"""max, min, amax, amin and median: reductions to each slice's extreme (or middle) value, with
torch's tie rules.

An extreme has no derivative where it is tied (two entries or more equal to it); torch documents
which subgradient it takes there, and so do these nodes: amax, amin, and max(), min() and median()
of every element, divide each slice's gradient evenly among its tied entries (OP-9, OP-10,
OP-12); max(dim) and min(dim) return the index of the first extreme of each slice and send it the
whole gradient (OP-11). The nodes save tensors (the input and the result, or the indices), so a
second backward without retain_graph raises (RETAIN-1). Forward mode follows the same rules on the
tangent (`jvp`).
"""
import collections

import numpy as np

from ..dual import jvp
from ..graph import Node, record
from ..tensor import make
from .common import dims_of, output, scatter_add, unary, value

# What max(dim) and min(dim) return: torch's torch.return_types.max, a named pair.
ValuesIndices = collections.namedtuple("ValuesIndices", ("values", "indices"))


def _reduced_dims(a, dim):
    """The dims an all-or-some reduction reduces: None for every element (dim None or (), or a
    0-dim input), else a sorted tuple (with torch's range error)."""
    dims = None if dim is None or dim == () else dims_of(a, dim)
    return None if a._array.ndim == 0 else dims


def _kept_shape(shape, dims):
    """The shape of a keepdim result: each reduced dim of size 1."""
    return tuple(1 if dims is None or i in dims else n for i, n in enumerate(shape))


def _spread(a, dim, keepdim, pick, node_class):
    """amax, amin, or max() / min() of every element: the extreme of each slice, recorded as
    `node_class`, which splits a tie's gradient evenly (OP-9, OP-10)."""
    x = a._array
    dims = _reduced_dims(a, dim)
    out = unary(pick(x, axis=dims, keepdims=keepdim)) if x.ndim else x.copy()
    node = record(node_class, a)
    out = output(out, node)
    if node is not None:
        node.dims = dims
        node.save(a, out.detach())
    return jvp(out, (a,), lambda da: even_split_tangent(da, x, out._array, dims, keepdim))


def even_split(grad, a, result, dims):
    """The gradient of an extreme: each slice's `grad` divided by the number of entries of `a`
    equal to the slice's extreme `result`, on those entries, 0 elsewhere (OP-9, OP-10). As torch
    computes it: grad with the reduced dims restored (a view only where they were dropped),
    divided by the count, times the mask, which broadcasts the quotient (GFN-10)."""
    a, result = value(a), value(result)
    kept = _kept_shape(a.shape, dims)
    tied = a == result.reshape(kept)
    count = tied.sum(axis=dims, keepdims=True).astype(a.dtype)
    restored = grad if grad.shape == kept else grad.reshape(kept)
    return restored / count * tied.astype(a.dtype)


def even_split_tangent(da, x, result, dims, keepdim):
    """Forward mode's even split: the mean of the tangent over each slice's tied entries."""
    tied = x == result.reshape(_kept_shape(x.shape, dims))
    mean = (da * tied).sum(axis=dims, keepdims=True) / tied.sum(axis=dims, keepdims=True)
    return mean.reshape(result.shape)


class _EvenSplit(Node):
    """The node of an extreme whose tie shares the gradient: it saves the input and the result."""

    __slots__ = ("dims",)
    saved_names = ("self", "result")
    saves_result = True

    def backward(self, grad):
        a, result = self.saved(grad)
        return (even_split(grad, a, result, self.dims),)


class AmaxBackward0(_EvenSplit):
    """d amax: a tie's gradient split evenly (OP-9)."""

    __slots__ = ()


class AminBackward0(_EvenSplit):
    """d amin: a tie's gradient split evenly (OP-9)."""

    __slots__ = ()


class MaxBackward1(_EvenSplit):
    """d max() of every element: a tie's gradient split evenly, as amax's (OP-10)."""

    __slots__ = ()


class MinBackward1(_EvenSplit):
    """d min() of every element: a tie's gradient split evenly, as amin's (OP-10)."""

    __slots__ = ()


def amax(a, dim=None, keepdim=False):
    return _spread(a, dim, keepdim, np.max, AmaxBackward0)


def amin(a, dim=None, keepdim=False):
    return _spread(a, dim, keepdim, np.min, AminBackward0)


def max(a, dim=None, keepdim=False):  # torch's name
    """max() of every element (MaxBackward1), or max(dim) -> (values, indices) (MaxBackward0)."""
    if dim is None:
        return _spread(a, None, keepdim, np.max, MaxBackward1)
    return _along(a, dim, keepdim, np.argmax, MaxBackward0)


def min(a, dim=None, keepdim=False):  # torch's name
    """min() of every element (MinBackward1), or min(dim) -> (values, indices) (MinBackward0)."""
    if dim is None:
        return _spread(a, None, keepdim, np.min, MinBackward1)
    return _along(a, dim, keepdim, np.argmin, MinBackward0)


def median(a, dim=None):
    """median() of every element (MedianBackward0): the lower median, the ((n - 1) // 2)-th smallest
    of n entries counting from 0, its gradient divided evenly among the entries equal to it, as a
    tied amax's is (OP-12). The reference has no median along a dim."""
    if dim is not None:
        raise NotImplementedError("reference: median along a dim is not implemented")
    return _spread(a, None, False, _lower_median, MedianBackward0)


def _lower_median(x, axis, keepdims):
    """The lower median of all of x's entries (`_spread`'s pick, which asks for every element)."""
    return np.sort(x, axis=None)[(x.size - 1) // 2]


class MedianBackward0(_EvenSplit):
    """d median() of every element: a tie's gradient split evenly (OP-12)."""

    __slots__ = ()


def _along(a, dim, keepdim, arg, node_class):
    """max(dim) or min(dim): each slice's extreme and the index of its first occurrence (NumPy's
    argmax and argmin return the first, as torch does: OP-11), recorded as `node_class`, which
    saves the indices."""
    x = a._array
    (d,) = dims_of(a, dim)
    kept = np.expand_dims(arg(x, axis=d), d) if x.ndim else np.zeros((), np.int64)
    values = np.take_along_axis(x, kept, axis=d) if x.ndim else x.copy()
    squeeze = x.ndim and not keepdim
    indices = make(np.squeeze(kept, d) if squeeze else kept)
    node = record(node_class, a)
    if node is not None:
        node.dim, node.keepdim, node.shape = d, keepdim, x.shape
    out = output(np.squeeze(values, d) if squeeze else values, node, indices)
    tangent = jvp(out, (a,), lambda da: np.take_along_axis(da, kept, axis=d).reshape(out.shape)
                  if x.ndim else da)
    return ValuesIndices(tangent, indices)


def to_index(grad, indices, dim, keepdim, shape):
    """Zeros of `shape` with each slice's gradient at its index along `dim`, and nothing at the
    slice's other entries, tied or not (OP-11)."""
    if not shape:
        return grad
    kept = indices if keepdim else np.expand_dims(indices, dim)
    grids = np.indices(kept.shape, sparse=True)
    key = tuple(kept if axis == dim else grid for axis, grid in enumerate(grids))
    return scatter_add(grad.reshape(kept.shape), shape, key)


class _ToIndex(Node):
    """The node of max(dim) or min(dim): it saves the indices it returned."""

    __slots__ = ("dim", "keepdim", "shape")
    saved_names = ("indices",)

    def backward(self, grad):
        indices, = self.saved(grad)
        return (to_index(grad, value(indices), self.dim, self.keepdim, self.shape),)


class MaxBackward0(_ToIndex):
    """d max(dim): each slice's gradient wholly to the index returned (OP-11)."""

    __slots__ = ()


class MinBackward0(_ToIndex):
    """d min(dim): each slice's gradient wholly to the index returned (OP-11)."""

    __slots__ = ()
