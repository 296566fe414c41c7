"""Reading by index: `a[key]`. Ints and slices give views; any other key gives a copy. split,
chunk and unbind give several views, each a slice or select.

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


def split(a, size, dim=0):
    """a.split(size, dim): views of consecutive pieces along dim, of `size` (the last one may be
    shorter; SplitBackward0) or of the sizes in a list (SplitWithSizesBackward0)."""
    d = dims_of(a, dim)[0]
    length = a._array.shape[d]
    if isinstance(size, int):
        sizes, name, node_class = [min(size, length - start) for start in range(0, length, size)] or [0], \
            "Split", SplitBackward0
    else:
        sizes, name, node_class = list(size), "SplitWithSizes", SplitWithSizesBackward0
        if sum(sizes) != length:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {length} (input "
                               f"tensor's size at dimension {d}), but got split_sizes={sizes}")
    starts = np.cumsum([0] + sizes[:-1])
    lead = (slice(None),) * d
    return _several_views(a, [lead + (slice(int(s), int(s) + n),) for s, n in zip(starts, sizes)],
                          name, node_class)


def chunk(a, chunks, dim=0):
    """a.chunk(n, dim): split into pieces of ceil(size / n), so maybe fewer than n (SplitBackward0)."""
    length = a._array.shape[dims_of(a, dim)[0]]
    return split(a, max(-(-length // chunks), 1), dim)


def unbind(a, dim=0):
    """a.unbind(dim): the selects of every index along dim (UnbindBackward0)."""
    d = dims_of(a, dim)[0]
    lead = (slice(None),) * d
    return _several_views(a, [lead + (i, Ellipsis) for i in range(a._array.shape[d])], "Unbind",
                          UnbindBackward0)


def _several_views(a, keys, name, node_class):
    """The views of one op that returns several: each is marked as output `number` of `name`, so
    that no in-place op may change one where autograd records it (VIEW-18). torch records one node
    with an output per view; the reference records a node per view, whose gradients add up alike."""
    pieces = tuple(_index_once(a, key, node_class) for key in keys)
    for number, piece in enumerate(pieces):
        piece._view.multiple = (name, number)
    return pieces


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


class SplitBackward0(SelectBackward0):
    __slots__ = ()


class SplitWithSizesBackward0(SelectBackward0):
    __slots__ = ()


class UnbindBackward0(SelectBackward0):
    __slots__ = ()


class IndexBackward0(SelectBackward0):
    """Any other key: NumPy indexing; repeated indices add up in the gradient."""

    __slots__ = ()

    def backward(self, grad):
        parts = self._unpack(as_tensors=False)
        return (scatter_add(grad, self.shape, tuple(parts) if isinstance(self.key, tuple) else parts[0]),)
