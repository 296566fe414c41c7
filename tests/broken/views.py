"""Mutants of the catalog's chapter 'views' (suites/test_views.py): Views and in-place operations
on views."""

import inspect
import textwrap

from autograd_conformance.harness.counts import VIEW_CHAIN
from autograd_conformance.reference import grad_mode
from autograd_conformance.reference.graph import record
from autograd_conformance.reference.ops import copies, inplace, views
from autograd_conformance.reference.ops.common import output
from autograd_conformance.reference.tensor import Tensor, _VersionCounter
from tests.broken import _reference
from tests.broken.registry import mutant


@mutant("VIEW-1")
def reference_views_copy():
    """A view op returns a copy of its input's elements instead of sharing them: the graph and the
    version counter are a view's, but a change through the base or the view is not seen by the
    other."""
    def _copying(view_of):
        def view_of_a_copy(a, array, node, how):
            return view_of(a, array.copy(), node, how)
        return view_of_a_copy

    _reference.replace(views, "view_of", _copying)


@mutant("VIEW-1")
def reference_flatten_always_views():
    """flatten() of a 1-D tensor returns a view of it (reshape(-1)) rather than the tensor itself:
    the same values and storage, another object."""
    def flatten_to_a_view(a):
        return views.reshape(a, (-1,))

    _reference.replace(views, "flatten", lambda flatten: flatten_to_a_view)
    Tensor.flatten = flatten_to_a_view


@mutant("VIEW-2")
def reference_view_base_is_parent():
    """A view's _base is the tensor it was taken from, not that tensor's own base: a view of a view
    names the first view."""
    def _parent_as_base(view_of):
        def view_of_parent(a, array, node, how):
            out = view_of(a, array, node, how)
            out._base = a
            return out
        return view_of_parent

    _reference.replace(views, "view_of", _parent_as_base)


@mutant("VIEW-3")
def reference_clone_shares_storage():
    """clone() records CloneBackward0 but returns the input's own elements, not a copy: a change to
    the input shows in the clone."""
    def _sharing(clone):
        def clone_sharing_storage(a):
            return output(a._array, record(copies.CloneBackward0, a))
        return clone_sharing_storage

    _reference.replace(copies, "clone", _sharing)
    Tensor.clone = copies.clone


@mutant("VIEW-4")
def reference_view_own_version_counter():
    """Each view gets a version counter of its own, starting at its base's count: an in-place op
    through the view does not move the base's _version, nor one through the base the view's."""
    def _own_counter(view_of):
        def view_of_with_own_counter(a, array, node, how):
            out = view_of(a, array, node, how)
            out._counter = _VersionCounter()
            out._counter.value = a._version
            out._view.version = out._counter.value
            return out
        return view_of_with_own_counter

    _reference.replace(views, "view_of", _own_counter)


@mutant("VIEW-5")
def reference_view_copies_silently():
    """view() copies where the input's strides cannot give the new shape, like reshape(), instead
    of raising."""
    _reference.replace(views, "view", lambda view: views.reshape)


@mutant("VIEW-6")
def reference_views_of_leaves_writable():
    """An in-place op through a view of a leaf that requires grad is not refused (only the leaf
    itself is): the leaf becomes a CopySlices non-leaf."""
    _CHECK = "base is not None and base._requires_grad and base.grad_fn is None"
    _source = textwrap.dedent(inspect.getsource(inplace._check_inplace))
    if _CHECK not in _source:
        raise ImportError("reference.ops.inplace._check_inplace changed: update this mutant's patch")
    exec(compile(_source.replace(_CHECK, "False"), inplace.__file__, "exec"), inplace.__dict__)


@mutant("VIEW-7")
def reference_view_of_leaf_message_generic():
    """An in-place op through a view of a requiring leaf raises, with the message of the leaf
    itself ('a leaf Variable that requires grad...'), not torch's 'a view of a leaf
    Variable...'."""
    inplace.VIEW_OF_LEAF_MESSAGE = inplace.LEAF_MESSAGE


@mutant("VIEW-8")
def reference_view_writes_not_in_base():
    """An in-place op on a view is recorded on the view only: its base keeps its old grad_fn, so
    the base's gradients ignore the change (and the view, re-read from the base, loses it too)."""
    def _rebase(a, node):
        a._bump_version()
        if node is not None:
            a._set_grad_fn(node)

    inplace._rebase = _rebase


@mutant("VIEW-9", "VIEW-10")
def reference_views_never_follow_base():
    """A view keeps the grad_fn it was made with after its storage changed in place: gradients
    through it ignore the change, whether made through the view or through its base."""
    def _follow_nothing(self, view):
        self.version = view._counter.value

    views.View.follow_base = _follow_nothing


@mutant("VIEW-10")
def reference_views_follow_own_writes_only():
    """A view follows an in-place op made through itself, but not one made through its base or
    another view: after y.mul_(c) a view of y still has its old values in the graph."""
    _follow = views.View.follow_base
    _rebase = inplace._rebase

    def _rebase_and_follow(a, node):
        _rebase(a, node)
        if node is not None and a._view is not None:
            _follow(a._view, a)

    def _follow_nothing(self, view):
        self.version = view._counter.value

    views.View.follow_base = _follow_nothing
    inplace._rebase = _rebase_and_follow


@mutant("VIEW-10", corner=VIEW_CHAIN)
def reference_writes_reach_the_parent_view_only():
    """A write through a view of a view tells its parent view that the storage changed, not the
    views further up the chain: in a chain of three or more views, a write through the last leaves
    the first (and any before the parent) with its old grad_fn, so gradients through it miss the
    change."""
    class ChainedView(views.View):
        __slots__ = ("parent",)

        def __init__(self, positions, version, parent=None):
            super().__init__(positions, version, parent)
            self.parent = parent

    _rebase = inplace._rebase

    def _rebase_telling_the_parent(a, node):
        _rebase(a, node)
        parent = a._view.parent if node is not None and a._view is not None else None
        ancestor = parent.parent if parent is not None else None
        while ancestor is not None:   # up to date as far as it knows: it will not follow the base
            ancestor.version = a._counter.value
            ancestor = ancestor.parent

    views.View = ChainedView
    inplace._rebase = _rebase_telling_the_parent


@mutant("VIEW-11")
def reference_as_strided_named_generically():
    """The node of a view re-read from its base is named AsStridedBackward, without torch's 0."""
    views.AsStridedBackward0.__name__ = views.AsStridedBackward0.__qualname__ = "AsStridedBackward"


@mutant("VIEW-12")
def reference_plain_base_stays_out_of_graph():
    """An in-place op on a view with a requiring operand is recorded in the base only when the base
    already requires grad: a plain base stays a leaf, and the operand's gradient is lost."""
    _rebase = inplace._rebase

    def _rebase_requiring_bases(a, node):
        if node is not None and a._view is not None and not a._base.requires_grad:
            a._bump_version()
            a._view.version = a._counter.value
            a._set_grad_fn(node)
            return
        _rebase(a, node)

    inplace._rebase = _rebase_requiring_bases


@mutant("VIEW-13")
def reference_no_grad_views_writable():
    """Views remember nothing of the grad mode they were taken in: one taken under no_grad is
    modified in place in grad mode and recorded like any other."""
    _init = views.View.__init__

    def _init_in_grad_mode(self, *args):
        _init(self, *args)
        if self.created == "no_grad":
            self.created = "grad"

    views.View.__init__ = _init_in_grad_mode


@mutant("VIEW-14")
def reference_no_grad_view_message_generic():
    """The error of an in-place op on a view taken under no_grad is worded its own way."""
    inplace.NO_GRAD_VIEW_MESSAGE = "cannot modify in place a view created under no_grad"


@mutant("VIEW-15")
def reference_expanded_views_unchecked():
    """In-place ops do not check whether elements of a view share memory: writing into an expanded
    view reaches NumPy, which refuses its read-only broadcast array with a ValueError."""
    views.View.overlaps = lambda self: False


@mutant("VIEW-15")
def reference_expanded_views_refuse_every_write():
    """Every in-place op checks for overlap: zero_(), fill_() and index assignment refuse an
    expanded view too (the catalog's rule before 2026-11-27) instead of writing through."""
    def _always(check):
        def checked(a, leaf_message, *operands, overlap_checked=True):
            return check(a, leaf_message, *operands, overlap_checked=True)
        return checked

    _reference.replace(inplace, "_check_inplace", _always)


@mutant("VIEW-15")
def reference_expanded_views_zeroed_in_a_copy():
    """zero_() on an expanded view zeros a copy of its elements: the view and its base keep their
    values (what VIEW-15's test missed while its base started at zeros)."""
    def _zeroing_a_copy(fill_):
        def fill(a, value):
            if value == 0 and a._view is not None and a._view.overlaps():
                a._bump_version()
                return a
            return fill_(a, value)
        return fill

    _reference.replace(inplace, "fill_", _zeroing_a_copy)


@mutant("VIEW-16")
def reference_detach_base_detaches_views():
    """detach_() counts as a change of the base's storage, and a view that follows its base takes
    its requires_grad too: after y.detach_() the views of y are out of the graph."""
    _detach_ = Tensor.detach_
    _follow = views.View.follow_base

    def _detach_and_bump(self):
        _detach_(self)
        self._bump_version()
        return self

    def _follow_requires_grad(self, view):
        _follow(self, view)
        if not view._base.requires_grad:
            view._grad_fn, view._requires_grad = None, False

    Tensor.detach_ = _detach_and_bump
    views.View.follow_base = _follow_requires_grad


@mutant("VIEW-17")
def reference_no_grad_view_writes_unversioned():
    """An in-place op through a view under no_grad does not move the version counter (the write is
    not recorded, so it is not counted): a node that saved the base does not notice it."""
    _bump_version = Tensor._bump_version

    def _bump_recorded_view_writes(self):
        if self._view is None or grad_mode.state.enabled:
            _bump_version(self)

    Tensor._bump_version = _bump_recorded_view_writes


@mutant("VIEW-18")
def reference_only_unbind_views_refuse_in_place():
    """Only the views of unbind are marked as views of an op with several outputs: those of
    split and chunk are modified in place and recorded like any view."""
    from autograd_conformance.reference.ops import indexing

    def marking_unbind_only(several_views):
        def several(a, keys, name, node_class):
            pieces = several_views(a, keys, name, node_class)
            for piece in pieces:
                if name != "Unbind":
                    piece._view.multiple = None
            return pieces
        return several

    _reference.replace(indexing, "_several_views", marking_unbind_only)


@mutant("VIEW-19", "VIEW-20")
def reference_inference_mode_views_writable():
    """Views remember no_grad but not inference_mode: one taken under inference_mode counts as
    taken in grad mode, and an in-place op on it in grad mode is recorded."""
    _init = views.View.__init__

    def _init_forgetting_inference(self, *args):
        _init(self, *args)
        if self.created == "inference":
            self.created = "grad"

    views.View.__init__ = _init_forgetting_inference


@mutant("VIEW-20")
def reference_inference_view_message_is_no_grad_s():
    """An in-place op on a view taken under inference_mode raises with the no_grad view's text."""
    inplace.INFERENCE_VIEW_MESSAGE = inplace.NO_GRAD_VIEW_MESSAGE
