"""Views: reshape, unsqueeze, expand, transpose. They share storage and version counter with their
base (INP-10), so an in-place change through either is seen by both and by the graph."""
import numpy as np

from ..graph import Node, record
from ..tensor import make
from .common import dims_of, meta, output, sum_to, swap_dims


def view_of(a, array, node, key=None):
    """The result of a view op: shares the base's version counter; `key` locates index views."""
    out = make(array, node is not None, node)
    out._counter = a._shared_counter()
    out._base = a._base if a._base is not None else a
    if a._base is None:
        out._view_key = key
    return out


def reshape(a, shape):
    """reshape/view (ViewBackward0, GFN-1); accepts a tuple or separate ints."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    x = a._array
    try:
        out = x.reshape(shape)
    except ValueError:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {x.size}") from None
    node = record(ViewBackward0, a)
    if node is not None:
        node.shape = x.shape
    if np.may_share_memory(out, x):
        return view_of(a, out, node)
    return output(out, node)


class ViewBackward0(Node):
    """d(reshape a): the gradient reshaped back to a's shape (OP-8)."""

    __slots__ = ("shape",)

    def backward(self, grad):
        return (grad.reshape(self.shape),)


def unsqueeze(a, dim):
    x = a._array
    out = np.expand_dims(x, dim if dim >= 0 else dim + x.ndim + 1)
    node = record(UnsqueezeBackward0, a)
    if node is not None:
        node.shape = x.shape
    return view_of(a, out, node)


class UnsqueezeBackward0(ViewBackward0):
    __slots__ = ()


def expand(a, sizes):
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    x = a._array
    lead = len(sizes) - x.ndim
    shape = tuple(x.shape[i - lead] if n == -1 else n for i, n in enumerate(sizes))
    node = record(ExpandBackward0, a)
    if node is not None:
        node.meta = meta(a)
    return view_of(a, np.broadcast_to(x, shape), node)


class ExpandBackward0(Node):
    __slots__ = ("meta",)

    def backward(self, grad):
        return (sum_to(grad, self.meta),)


def _transposed(a, dim0, dim1, node_class):
    x = a._array
    dims = (dims_of(a, dim0)[0], dims_of(a, dim1)[0]) if x.ndim >= 2 else None
    node = record(node_class, a)
    if node is not None:
        node.dims = dims
    return view_of(a, np.swapaxes(x, *dims) if dims else x.view(), node)


def transpose(a, dim0, dim1):
    return _transposed(a, dim0, dim1, TransposeBackward0)


def t(a):
    """x.t() records TBackward0 while x.T records PermuteBackward0 (GFN-1)."""
    if a._array.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a._array.ndim}D")
    return _transposed(a, 0, 1, TBackward0)


def permute_reversed(a):
    """x.T: all dims reversed (PermuteBackward0); for 2-D the same as a transpose."""
    if a._array.ndim > 2:
        raise NotImplementedError("reference: x.T is only supported for tensors of at most 2 dims")
    return _transposed(a, 0, 1, PermuteBackward0)


class TransposeBackward0(Node):
    """d(transpose a): the gradient with the same two dims swapped back (OP-8)."""

    __slots__ = ("dims",)

    def backward(self, grad):
        return (swap_dims(grad, *self.dims) if self.dims else grad,)


class TBackward0(TransposeBackward0):
    __slots__ = ()


class PermuteBackward0(TransposeBackward0):
    __slots__ = ()
