"""Views: reshape/view, flatten, unsqueeze, squeeze, expand, transpose, t, select and narrow (and
`a[int or slice]`, indexing.py). A view shares storage and version counter with its base, the
tensor it was ultimately taken from (VIEW-1, VIEW-2, VIEW-4), so an in-place change through
either is seen by both and by the graph.

Each view keeps a `View`: for each of its elements, the flat position in the base of the element
it shares. That is all the graph needs: an in-place op on a view rewrites those positions of the
base (CopySlices, inplace.py), and a view whose storage changed reads its elements back from the
base's new graph (AsStridedBackward0, `View.follow_base`). A view op is linear: in forward mode
the view's tangent is the same view of its input's tangent, a view of it as in torch (FN-24).
"""
import numpy as np

from .. import grad_mode
from ..dual import jvp, primals_only, set_tangent, tangent
from ..graph import Node, record
from ..tensor import make
from .common import dims_of, meta, output, scatter_add, sum_to, swap_dims

VIEW_MESSAGE = ("view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")


class View:
    """Where a view's elements are in its base; the mode it was `created` in, "grad", "no_grad"
    or "inference" (only views taken in grad mode join the graph, VIEW-13, VIEW-20); whether it
    is one of `multiple` views an op returned, as (op name, output number), or a view of one
    (VIEW-18); and the version its grad_fn was recorded at. A view of a view keeps its parent's
    mode unless taken in another mode than grad mode, and inference mode sticks, as in torch."""

    __slots__ = ("positions", "created", "multiple", "version")

    def __init__(self, positions, version, parent=None):
        self.positions = positions
        self.created = _creation_mode(parent)
        self.multiple = parent.multiple if parent is not None else None
        self.version = version

    def overlaps(self):
        """Whether two elements of the view are one element of the base (an expanded view)."""
        return np.unique(self.positions).size < self.positions.size

    def follow_base(self, view):
        """The storage changed in place since view's grad_fn was recorded (Tensor.grad_fn calls
        this): a view taken in grad mode of a base that requires grad now reads its elements from
        the base's current grad_fn (VIEW-9, VIEW-10)."""
        self.version = view._counter.value
        base = view._base
        if self.created == "grad" and base._requires_grad:
            node = AsStridedBackward0(base)
            node.shape, node.positions = base._array.shape, self.positions
            view._set_grad_fn(node)


def _creation_mode(parent):
    modes = grad_mode.state
    now = "inference" if modes.inference else "grad" if modes.enabled else "no_grad"
    if parent is None or parent.created == "grad":
        return now
    return parent.created if now == "grad" or parent.created == "inference" else now


def positions_in_base(a):
    """For each element of a, the flat position in a's base of the element it shares."""
    if a._view is not None:
        return a._view.positions
    return np.arange(a._array.size).reshape(a._array.shape)


def view_of(a, array, node, how):
    """The result of a view op on `a`: `array` shares a's storage; `how` does to any array of a's
    shape what the op did (it maps a's positions in the base to the view's, and a's tangent to the
    view's). A view of a normal tensor is a normal tensor, inside inference_mode too (MODE-6)."""
    out = make(array, node is not None, node)
    out._counter = a._shared_counter()
    out._base = a._base if a._base is not None else a
    out._fw_base = a._fw_base if a._fw_base is not None else a
    out._inference = a._inference
    out._view = View(how(positions_in_base(a)), out._counter.value, a._view)
    given = tangent(a)
    if given is not None:
        with primals_only():
            view = view_of(given, how(given._array), None, how)
        set_tangent(out, view)
    return out


class AsStridedBackward0(Node):
    """The grad_fn of a view read back from its base after an in-place change (VIEW-11): the
    gradient added into zeros of the base's shape at the view's positions."""

    __slots__ = ("shape", "positions")

    def backward(self, grad):
        return (scatter_add(grad, (int(np.prod(self.shape, dtype=int)),), self.positions)
                .reshape(self.shape),)


def _shape_of(shape):
    """`f(2, 3)` or `f((2, 3))`: the sizes as one tuple."""
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else tuple(shape)


def reshape(a, shape):
    """reshape (ViewBackward0, GFN-1): a view where the elements can be read in the new shape
    from a's strides, else a copy (VIEW-3); accepts a tuple or separate ints."""
    shape = _shape_of(shape)
    x = a._array
    for index, size in enumerate(shape):  # NumPy would take any negative size as the inferred one
        if size < -1:
            raise RuntimeError(f"invalid shape dimension {size} at index {index} of shape {list(shape)}")
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    try:
        out = x.reshape(shape)
    except ValueError:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {x.size}") from None
    node = record(ViewBackward0, a)
    if node is not None:
        node.shape = x.shape
    if np.may_share_memory(out, x):
        return view_of(a, out, node, lambda p: p.reshape(shape))
    return jvp(output(out, node), (a,), lambda da: da.reshape(shape))


def flatten(a):
    """reshape(-1), except that a 1-D tensor is returned itself, not a view of it."""
    return a if a._array.ndim == 1 else reshape(a, (-1,))


def view(a, shape):
    """view: reshape that never copies; where it would have to, it raises (VIEW-5)."""
    out = reshape(a, shape)
    if out._base is None and a._array.size > 1:
        raise RuntimeError(VIEW_MESSAGE)
    return out


class ViewBackward0(Node):
    """d(reshape a): the gradient reshaped back to a's shape (OP-8)."""

    __slots__ = ("shape",)

    def backward(self, grad):
        return (grad.reshape(self.shape),)


def unsqueeze(a, dim):
    x = a._array
    dim = dim if dim >= 0 else dim + x.ndim + 1
    node = record(UnsqueezeBackward0, a)
    if node is not None:
        node.shape = x.shape
    return view_of(a, np.expand_dims(x, dim), node, lambda p: np.expand_dims(p, dim))


class UnsqueezeBackward0(ViewBackward0):
    __slots__ = ()


def squeeze(a, dim=None):
    """squeeze() drops every size-1 dim (SqueezeBackward0), squeeze(dim) that one if its size is
    1 (SqueezeBackward1; SqueezeBackward2 for a tuple of dims); a 0-dim tensor's dim 0 or -1
    leaves it as it is."""
    x = a._array
    if dim is None:
        dims, node_class = tuple(d for d, size in enumerate(x.shape) if size == 1), SqueezeBackward0
    else:
        dims = tuple(d for d in dims_of(a, dim) if x.ndim and x.shape[d] == 1)
        node_class = SqueezeBackward1 if isinstance(dim, int) else SqueezeBackward2
    node = record(node_class, a)
    if node is not None:
        node.shape = x.shape
    return view_of(a, x.squeeze(dims), node, lambda p: p.squeeze(dims))


class SqueezeBackward0(ViewBackward0):
    """d(squeeze a): as a reshape's, except that a squeeze that dropped no dim passes the gradient
    on as it is, as torch's does (so a leaf copies it rather than keeping a view: ACC-14)."""

    __slots__ = ()

    def backward(self, grad):
        return (grad,) if grad.shape == self.shape else super().backward(grad)


class SqueezeBackward1(SqueezeBackward0):
    __slots__ = ()


class SqueezeBackward2(SqueezeBackward0):
    __slots__ = ()


def expand(a, sizes):
    sizes = _shape_of(sizes)
    x = a._array
    lead = len(sizes) - x.ndim
    shape = tuple(x.shape[i - lead] if n == -1 else n for i, n in enumerate(sizes))
    node = record(ExpandBackward0, a)
    if node is not None:
        node.meta = meta(a)
    return view_of(a, _broadcast(x, shape), node, lambda p: np.broadcast_to(p, shape))


def _broadcast(x, shape):
    """x broadcast to `shape` in x's own memory, writable where x is: a write into an element
    lands in x, once for all the elements that share it. Only the in-place ops that check for
    overlap refuse such a view (VIEW-15); zero_(), fill_() and index assignment write through."""
    strides = np.broadcast_to(x, shape).strides
    return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=x.flags.writeable)


class ExpandBackward0(Node):
    """d(expand a): the gradient summed to a's shape, over the new leading dims and the dims
    expanded from size 1 (LAYOUT-3)."""

    __slots__ = ("meta",)

    def backward(self, grad):
        return (sum_to(grad, self.meta),)


def _transposed(a, dim0, dim1, node_class):
    x = a._array
    dims = (dims_of(a, dim0)[0], dims_of(a, dim1)[0]) if x.ndim >= 2 else None
    node = record(node_class, a)
    if node is not None:
        node.dims = dims
    swap = (lambda p: np.swapaxes(p, *dims)) if dims else (lambda p: p.view())
    return view_of(a, swap(x), node, swap)


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
