"""Reading by index: `a[key]`. Ints and slices give views; any other key gives a copy.

Forward mode takes the same elements of the input's tangent (`jvp`). Writing by index
(`a[key] = value`) is an in-place op: see inplace.py.
"""
import numpy as np

from ..dual import jvp
from ..graph import Node, record
from ..tensor import Tensor
from .common import dims_of, make, output, scatter_add, unary, zeros_for
from .views import view_of


def index(a, key):
    """a[key]: ints and slices become a chain of SelectBackward0 / SliceBackward0 views (GFN-1)."""
    parts = key if isinstance(key, tuple) else (key,)
    parts = tuple(int(k) if isinstance(k, Tensor) and k._array.ndim == 0 and k._array.dtype.kind in "iu" else k
                  for k in parts)
    if not all(isinstance(k, (int, slice)) for k in parts):
        key = tuple(k._array if isinstance(k, Tensor) else k for k in parts)
        return _index_once(a, key if len(key) != 1 else key[0], IndexBackward0)
    if len(parts) > a._array.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a._array.ndim}")
    out, dim = a, 0
    for k in parts:
        lead = (slice(None),) * dim
        if isinstance(k, int):
            size = out._array.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {size}")
            out = _index_once(out, lead + (k, Ellipsis), SelectBackward0)
        else:
            if k != slice(None):  # a full slice is no op (x[:, 0] is one SelectBackward0)
                out = _index_once(out, lead + (k,), SliceBackward0)
            dim += 1
    return out if out is not a else _index_once(a, (slice(None),), SliceBackward0)


def select(a, dim, i):
    """a.select(dim, i): a[:, ..., i] with i at `dim` (SelectBackward0, a view)."""
    return index(a, (slice(None),) * dims_of(a, dim)[0] + (i,))


def narrow(a, dim, start, length):
    """a.narrow(dim, start, length): a[:, ..., start:start + length] (SliceBackward0, a view)."""
    return index(a, (slice(None),) * dims_of(a, dim)[0] + (slice(start, start + length),))


def _index_once(a, key, node_class):
    """One select, slice or general index; the first two are views."""
    x = a._array
    try:
        out = x[key]
    except IndexError as error:
        raise IndexError(str(error).replace("axis", "dimension")) from None
    node = record(node_class, a)
    if node is not None:
        node.shape, node.key = x.shape, key
        if node_class is IndexBackward0:
            # torch keeps the indices, as tensors: a second backward raises (RETAIN-1), and
            # saved-tensor hooks see them (SAV-1)
            node.save(*(make(np.asarray(k)) if isinstance(k, (np.ndarray, list)) else k
                        for k in (key if isinstance(key, tuple) else (key,))))
    if node_class is IndexBackward0 and not np.may_share_memory(out, x):
        return jvp(output(unary(out), node), (a,), lambda da: da[key])
    return view_of(a, out, node, lambda positions: positions[key])


class SelectBackward0(Node):
    """d(a[int or slice]): the gradient put back into zeros of a's shape (OP-8)."""

    __slots__ = ("shape", "key")

    def backward(self, grad):
        full = zeros_for(grad, self.shape)
        full[self.key] = grad
        return (full,)


class SliceBackward0(SelectBackward0):
    __slots__ = ()


class IndexBackward0(SelectBackward0):
    """Any other key: NumPy indexing; repeated indices add up in the gradient."""

    __slots__ = ()

    def backward(self, grad):
        parts = self._unpack(as_tensors=False)
        return (scatter_add(grad, self.shape, tuple(parts) if isinstance(self.key, tuple) else parts[0]),)
