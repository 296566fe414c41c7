"""Mutants of the catalog's chapter 'inplace' (suites/test_inplace.py): In-place operations and
index assignment."""

import torch

from autograd_conformance.reference import grad_mode, graph
from autograd_conformance.reference.ops import inplace
from autograd_conformance.reference.tensor import Tensor
from tests.broken import _reference, _torch
from tests.broken.registry import mutant


@mutant("INP-14")
def torch_setitem_not_recorded():
    """Index assignment copies the assigned value's data without recording the op, so `n[0, 0] =
    m[0, 0] ** 2` leaves n outside the graph and backward never reaches m."""
    _setitem = torch._C.TensorBase.__setitem__

    def _setitem_detached(self, key, value):
        if isinstance(value, torch.Tensor):
            value = value.detach()
        return _setitem(self, key, value)

    torch.Tensor.__setitem__ = _setitem_detached


@mutant("INP-1", "MSG-6")
def torch_inplace_on_leaf_allowed():
    """In-place ops on a leaf that requires grad are silently performed (as if under no_grad)
    instead of raising RuntimeError."""
    _METHODS = ("add_", "mul_", "zero_", "copy_", "sub_", "div_")

    def _permissive(method):
        def apply(self, *args, **kwargs):
            if self.is_leaf and self.requires_grad and torch.is_grad_enabled():
                with torch.no_grad():
                    return method(self, *args, **kwargs)
            return method(self, *args, **kwargs)
        return apply

    for _name in _METHODS:
        setattr(torch.Tensor, _name, _permissive(getattr(torch.Tensor, _name)))


@mutant("INP-3")
def torch_setitem_into_leaf_allowed():
    """Index assignment into a leaf that requires grad is silently performed instead of raising
    RuntimeError."""
    _setitem = torch._C.TensorBase.__setitem__

    def _permissive(self, key, value):
        if self.is_leaf and self.requires_grad and torch.is_grad_enabled():
            with torch.no_grad():
                return _setitem(self, key, value)
        return _setitem(self, key, value)

    torch.Tensor.__setitem__ = _permissive


@mutant("INP-4")
def torch_inplace_refused_on_all_leaves():
    """In-place ops are refused on every leaf (the engine checks is_leaf, not is_leaf and
    requires_grad and grad mode)."""
    _METHODS = ("add_", "mul_")

    def _strict(method):
        def apply(self, *args, **kwargs):
            if self.is_leaf:
                raise RuntimeError("a leaf Variable is being used in an in-place operation.")
            return method(self, *args, **kwargs)
        return apply

    for _name in _METHODS:
        setattr(torch.Tensor, _name, _strict(getattr(torch.Tensor, _name)))


@mutant("INP-11", "INP-5", "MSG-7")
def torch_inplace_bypasses_autograd():
    """In-place ops on a non-leaf write through `.data`: they are not recorded and do not bump the
    version counter, so gradients are those of the unmodified values and a modified saved tensor
    goes unnoticed."""
    _METHODS = ("add_", "mul_", "sub_", "div_", "zero_", "copy_")

    def _through_data(method):
        def apply(self, *args, **kwargs):
            if not self.is_leaf:
                method(self.data, *[a.detach() if isinstance(a, torch.Tensor) else a for a in args],
                       **kwargs)
                return self
            return method(self, *args, **kwargs)
        return apply

    for _name in _METHODS:
        setattr(torch.Tensor, _name, _through_data(getattr(torch.Tensor, _name)))


@mutant("INP-9")
def torch_any_inplace_blocks_backward():
    """Any in-place op on a tensor in the graph makes the next backward raise, even when no node
    saved that tensor (a conservative version check over every tensor instead of saved ones)."""
    _METHODS = ("add_", "mul_", "sub_", "div_")
    _dirty = []

    def _marking(method):
        def apply(self, *args, **kwargs):
            if self.requires_grad and not self.is_leaf:
                _dirty.append(True)
            return method(self, *args, **kwargs)
        return apply

    def _backward(original, tensor, *args):
        if _dirty:
            _dirty.clear()
            raise RuntimeError("one of the variables needed for gradient computation has been modified "
                               "by an inplace operation")
        return original(tensor, *args)

    for _name in _METHODS:
        setattr(torch.Tensor, _name, _marking(getattr(torch.Tensor, _name)))
    _torch.patch_backward(_backward)


@mutant("INP-5")
def torch_backward_refused_after_any_inplace():
    """Once an in-place op has modified a tensor that requires grad, every later backward raises
    the version-counter error, whatever it saved: an engine that refuses too much, which INP-5's
    refusals alone let pass and its positive control (the same backward, unmodified) kills."""
    _METHODS = ("add_", "mul_", "sub_", "div_")
    _modified = []

    def _marking(method):
        def apply(self, *args, **kwargs):
            if self.requires_grad:
                _modified.append(True)
            return method(self, *args, **kwargs)
        return apply

    def _backward(original, tensor, *args):
        if _modified:
            raise RuntimeError("one of the variables needed for gradient computation has been modified "
                               "by an inplace operation")
        return original(tensor, *args)

    for _name in _METHODS:
        setattr(torch.Tensor, _name, _marking(getattr(torch.Tensor, _name)))
    _torch.patch_backward(_backward)


@mutant("INP-10")
def torch_setitem_not_versioned():
    """Index assignment does not count as an in-place op for the version counter."""
    _setitem = torch._C.TensorBase.__setitem__

    def _counting(self, key, value):
        _setitem(self, key, value)
        self._mutant_setitems = getattr(self, "_mutant_setitems", 0) + 1

    torch.Tensor.__setitem__ = _counting
    _torch.patch_property("_version", getter=lambda get, t: get(t) - getattr(t, "_mutant_setitems", 0))


@mutant("INP-12")
def torch_constant_setitem_not_recorded():
    """Assigning a constant into a non-leaf writes through `.data` without recording, so the
    overwritten elements still pass gradient to the inputs."""
    _setitem = torch._C.TensorBase.__setitem__

    def _constant_through_data(self, key, value):
        if not self.is_leaf and not (isinstance(value, torch.Tensor) and value.requires_grad):
            return _setitem(self.data, key, value)
        return _setitem(self, key, value)

    torch.Tensor.__setitem__ = _constant_through_data


@mutant("INP-16")
def torch_inplace_on_plain_not_recorded():
    """An in-place op on a tensor that does not require grad is never recorded, even when its
    operand requires grad: a.add_(x) leaves a a plain leaf and backward never reaches x."""
    _METHODS = ("add_", "mul_", "sub_", "div_", "copy_")

    def _unrecorded(method):
        def apply(self, *args, **kwargs):
            if not self.requires_grad:
                args = [a.detach() if isinstance(a, torch.Tensor) else a for a in args]
            return method(self, *args, **kwargs)
        return apply

    for _name in _METHODS:
        setattr(torch.Tensor, _name, _unrecorded(getattr(torch.Tensor, _name)))


@mutant("INP-19")
def reference_copy_passes_gradient_through():
    """x.copy_(src) on a non-leaf also passes the incoming gradient on to what x was computed from,
    as if the old values were still part of the result."""
    _backward = inplace.CopyBackwards.backward

    def _passes_through(self, grad):
        overwritten, src = _backward(self, grad)
        return (None if overwritten is None else grad, src)

    inplace.CopyBackwards.backward = _passes_through


@mutant("INP-6")
def reference_saved_result_unversioned():
    """A saved result seen again through its node (the create_graph path) gets a fresh version
    counter: after the result is modified in place, differentiating a gradient taken from it
    computes with the new values instead of raising."""
    _unpack = graph.Node._unpack

    def _fresh_counters(self, as_tensors):
        values = _unpack(self, as_tensors)
        if as_tensors and self.saves_result:
            result = values[-1]
            values = values[:-1] + (graph.make(result._array, True, self),)
        return values

    graph.Node._unpack = _fresh_counters


@mutant("INP-7")
def reference_version_error_without_counts():
    """The version-counter error reports a modified flag, not the versions: always 'is at version
    1; expected version 0', however many in-place ops there were before and after the tensor was
    saved."""
    def _flag_only(message):
        def modified_message(tensor, expected, node):
            return message(tensor, expected, node).replace(
                f"is at version {tensor._version}; expected version {expected}",
                "is at version 1; expected version 0")
        return modified_message

    _reference.replace(graph, "_modified_message", _flag_only)


@mutant("INP-8")
def reference_no_grad_inplace_unversioned():
    """The version counter moves only for in-place ops in grad mode (where they are recorded): a
    saved leaf changed under no_grad goes unnoticed, and backward computes with its new values."""
    _bump_version = Tensor._bump_version

    def _in_grad_mode_only(self):
        if grad_mode.state.enabled:
            _bump_version(self)

    Tensor._bump_version = _in_grad_mode_only


@mutant("INP-15")
def reference_setitem_always_recorded():
    """Index assignment is recorded whenever grad mode is on, as a CopySlices node, even when
    neither the tensor nor the value requires grad: the tensor becomes a non-leaf that requires
    grad."""
    def _copy_slices_in_grad_mode(record):
        def recorded(node_class, *inputs):
            if node_class is inplace.CopySlices and grad_mode.state.enabled:
                return node_class(*inputs)
            return record(node_class, *inputs)
        return recorded

    _reference.replace(inplace, "record", _copy_slices_in_grad_mode)


@mutant("INP-20")
def reference_increment_version_ignores_lists():
    """increment_version bumps a tensor given alone, but does nothing with a list of tensors."""
    from autograd_conformance.reference.autograd import graph as autograd_graph
    _increment = autograd_graph.increment_version
    autograd_graph.increment_version = (
        lambda tensor: None if isinstance(tensor, (list, tuple)) else _increment(tensor))
