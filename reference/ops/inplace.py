"""In-place ops: the same op, its result written back, the tensor rebased onto the op's node (INP-11).

`a.add_(b)`, `a.zero_()`, `a.copy_(b)` and `a[key] = value` all bump the version counter that `a`
shares with its views (INP-10), and are refused where torch refuses them (INP-1, VIEW-6, VIEW-13, VIEW-15, MODE-7).
"""
import numpy as np

from .. import dtypes, grad_mode
from ..dual import tangent
from ..graph import Node, record, recording
from ..module_hooks import BackwardHookFunctionBackward
from ..saved import saved_mutation
from ..tensor import Tensor, make
from .arithmetic import add, div, mul, sub
from .common import as_operand, meta, sum_to  # `value` names fill_'s argument
from .common import value as value_of

_state = grad_mode.state

LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_MESSAGE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
NO_GRAD_VIEW_MESSAGE = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that "
    "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both "
    "the view and the inplace either both inside the no_grad block (if you don't want the inplace to be "
    "tracked) or both outside (if you want the inplace to be tracked).")
INFERENCE_VIEW_MESSAGE = (
    "A view was created in inference mode and is being modified inplace in normal mode. Given that "
    "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both "
    "the view and the inplace either both inside the inference_mode block (if you don't want the inplace to "
    "be tracked) or both outside (if you want the inplace to be tracked).")
MULTIPLE_VIEWS_MESSAGE = (
    "Output {number} of {name} is a view and is being modified inplace. This view is the output of a "
    "function that returns multiple views. Such functions do not allow the output views to be modified "
    "inplace. You should replace the inplace operation by an out-of-place one.")
OVERLAP_MESSAGE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory "
    "location. Please clone() the tensor before performing the operation.")
FORWARD_AD_MESSAGE = "reference: forward-mode AD through in-place ops is not supported"
OVERLAP_RECORDED_MESSAGE = ("the reference engine does not record a write into a view whose "
                            "elements share memory (an expanded view)")
HOOK_WRAPPED_MESSAGE = (
    "Output 0 of BackwardHookFunction is a view and is being modified inplace. This view was created inside a "
    "custom Function (or because an input was returned as-is) and the autograd logic to handle view+inplace "
    "would override the custom backward associated with the custom Function, leading to incorrect gradients. "
    "This behavior is forbidden. You can fix this by cloning the output of the custom Function.")
INPLACE_INFERENCE_MESSAGE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get "
    "a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
)


def _check_inplace(a, leaf_message, *operands, overlap_checked=True):
    """torch's refusals, in its words: for the ops that check for overlap (all but zero_(),
    fill_() and index assignment, `overlap_checked`), a view whose elements share memory (VIEW-15,
    in no_grad too); inference tensors (MODE-7); in grad mode, where the op would be recorded, an
    output of split, chunk or unbind (VIEW-18) and a view taken under no_grad or inference_mode
    (VIEW-13, VIEW-14, VIEW-19, VIEW-20), and requiring leaves and their views (INP-1, VIEW-6,
    VIEW-7, MSG-6), parameters (MOD-12), the tensors a module's backward hooks pass through
    their identity node (HOOK-21) and index assignment (INP-3) included. A leaf that does
    not require grad, and under no_grad one that does, may be modified in place (INP-4, MODE-3).
    The reference has no forward-mode rule for in-place ops: it refuses them on tensors with a
    tangent rather than leave a stale one. Under allow_mutation_on_saved_tensors, what nodes
    saved of the storage is copied before the write (SAV-12)."""
    if any(isinstance(x, Tensor) and tangent(x) is not None for x in (a, *operands)):
        raise NotImplementedError(FORWARD_AD_MESSAGE)
    view = a._view
    if overlap_checked and view is not None and view.overlaps():
        raise RuntimeError(OVERLAP_MESSAGE)
    if a._inference and not _state.inference:
        raise RuntimeError(INPLACE_INFERENCE_MESSAGE)
    if _state.enabled:
        base = a._base
        if view is not None and recording(base, *operands):
            if view.created == "no_grad":
                raise RuntimeError(NO_GRAD_VIEW_MESSAGE)
            if view.created == "inference":
                raise RuntimeError(INFERENCE_VIEW_MESSAGE)
            if view.multiple is not None:
                name, number = view.multiple
                raise RuntimeError(MULTIPLE_VIEWS_MESSAGE.format(number=number, name=name))
        if isinstance(a.grad_fn, BackwardHookFunctionBackward):
            raise RuntimeError(HOOK_WRAPPED_MESSAGE)  # a module's hooked input or output (HOOK-21)
        if a._requires_grad and a.grad_fn is None:
            raise RuntimeError(leaf_message)
        if base is not None and base._requires_grad and base.grad_fn is None:
            raise RuntimeError(VIEW_OF_LEAF_MESSAGE)
    saved_mutation.before_write(a)


def _unrecorded_if_overlapping(a, *operands):
    """zero_(), fill_() and index assignment write through a view whose elements share memory
    (VIEW-15), but the reference records no such write: torch's backward through one depends on
    the view's strides (it refuses some), and the reference does not pretend to know which."""
    if a._view is not None and a._view.overlaps() and recording(a, *operands):
        raise NotImplementedError(OVERLAP_RECORDED_MESSAGE)


def _snapshot(a):
    """a's old value at a's place in the graph: what the in-place op's node reads and points to."""
    return make(a._array.copy(), a._requires_grad, a.grad_fn)


def _rebase(a, node):
    """After an in-place write: bump the version and make `node` a's grad_fn (INP-10, INP-11).

    No node: the write was not recorded, only the version moves (a leaf stays a leaf, INP-4), so
    a node that saved the base of a view written under no_grad still sees it (VIEW-17). A view's
    write is recorded in its base (VIEW-8): the base, which requires grad from then on even if it
    did not (VIEW-12), becomes a CopySlices that takes the view's new values, the output of `node`,
    at the view's positions, and the view, whose version moved, reads them back from there on its
    next use (VIEW-9, views.py).
    """
    a._bump_version()
    if node is None:
        return
    if a._view is None:
        a._set_grad_fn(node)
        return
    base = a._base
    copy = CopySlices(base, make(a._array, True, node))
    copy.shape, copy.positions, copy.value_meta = base._array.shape, a._view.positions, meta(a)
    base._set_grad_fn(copy)


def _inplace(a, op, ufunc, other):
    """Apply op(a, other) in place: recorded like the out-of-place op when a gradient can flow."""
    other = as_operand(other)
    _check_inplace(a, LEAF_MESSAGE, other)
    if recording(a, other):
        out = op(_snapshot(a), other)
        a._array[...] = out._array
        _rebase(a, out.grad_fn)
        return a
    try:
        ufunc(a._array, value_of(other), out=a._array)
    except TypeError:
        got = dtypes.from_numpy(dtypes.result_type(a._array, value_of(other))).torch_name
        raise RuntimeError(f"result type {got} can't be cast to the desired output type "
                           f"{a.dtype.torch_name}") from None
    a._bump_version()  # not recorded, still counted, through a view too (VIEW-17)
    return a


def add_(a, other):
    return _inplace(a, add, np.add, other)


def sub_(a, other):
    return _inplace(a, sub, np.subtract, other)


def mul_(a, other):
    return _inplace(a, mul, np.multiply, other)


def div_(a, other):
    return _inplace(a, div, np.true_divide, other)


def fill_(a, value):
    """zero_() and fill_(value): ZeroBackward0 or FillBackward2, the old value gets no gradient.
    On a `.grad` (a leaf that does not require grad) zero_() zeros the gradient in place (ACC-6).
    Into a view whose elements share memory it writes through (VIEW-15)."""
    _check_inplace(a, LEAF_MESSAGE, overlap_checked=False)
    _unrecorded_if_overlapping(a)
    node = record(ZeroBackward0 if value == 0 else FillBackward2, a)
    a._array[...] = value_of(value)
    _rebase(a, node)
    return a


class FillBackward(Node):
    """The old value gets zeros, not None (INP-19)."""

    __slots__ = ()

    def backward(self, grad):
        return (grad * 0,)


class ZeroBackward0(FillBackward):
    __slots__ = ()


class FillBackward2(FillBackward):
    __slots__ = ()


def copy_(a, src):
    """a.copy_(src): a takes src's values and, if src requires grad, its gradient path."""
    src = as_operand(src)
    _check_inplace(a, LEAF_MESSAGE, src)
    node = record(CopyBackwards, a, src)
    if node is not None:
        node.src_meta = meta(src)
    a._array[...] = value_of(src)
    _rebase(a, node)
    return a


class CopyBackwards(Node):
    """The old value gets zeros, not None; src the gradient summed to its shape (INP-19)."""

    __slots__ = ("src_meta",)

    def name(self):
        return "torch::autograd::CopyBackwards"

    def backward(self, grad):
        return (grad * 0 if self.needs_grad(0) else None,
                sum_to(grad, self.src_meta) if self.needs_grad(1) else None)


def index_put(a, key, value):
    """a[key] = value, recorded as CopySlices when a gradient can flow through it (INP-14); else
    not recorded at all, so a plain a stays a leaf that does not require grad (INP-15)."""
    if isinstance(key, Tensor):
        key = key._array
    elif isinstance(key, tuple):
        key = tuple(k._array if isinstance(k, Tensor) else k for k in key)
    value = as_operand(value)
    # INP-3: refused on a leaf that requires grad; no overlap check (VIEW-15)
    _check_inplace(a, VIEW_OF_LEAF_MESSAGE, value, overlap_checked=False)
    _unrecorded_if_overlapping(a, value)
    node = record(CopySlices, a, value)
    if node is not None:
        positions = np.arange(a._array.size).reshape(a._array.shape)[key]
        node.shape, node.positions, node.value_meta = a._array.shape, positions, meta(value)
    a._array[key] = _without_leading_ones(value_of(value))
    _rebase(a, node)


def _without_leading_ones(value):
    """The value of a[key] = value with its leading size-1 dims dropped, as torch drops them before
    it broadcasts the value to the slot: a (1,) or (1, 1) value fills a one-element slot y[i]."""
    shape = np.shape(value)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return np.reshape(value, shape) if shape != np.shape(value) else value


class CopySlices(Node):
    """t[key] = value, or an in-place op on a view of t: the elements at the flat `positions` of t
    were overwritten. They pass no gradient to t's old value; the value written, of the shape of
    `positions` or broadcast to it, gets the gradient there (INP-12, GFN-6, VIEW-8)."""

    __slots__ = ("shape", "positions", "value_meta")

    def name(self):
        return "torch::autograd::CopySlices"

    def backward(self, grad):
        flat = grad.reshape(-1)
        kept = None
        if self.needs_grad(0):
            mask = np.ones(flat.shape, grad._array.dtype if isinstance(grad, Tensor) else grad.dtype)
            mask[self.positions] = 0
            kept = (flat * mask).reshape(self.shape)
        written = flat[np.atleast_1d(self.positions)].reshape(np.shape(self.positions))
        value = sum_to(written, self.value_meta) if self.needs_grad(1) else None
        return kept, value
