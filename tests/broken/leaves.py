"""Mutants of the catalog's chapter 'leaves' (suites/test_leaves.py): Leaves, .grad and
retain_grad."""

import inspect
import weakref

import numpy as np
import torch

from autograd_conformance import reference
from autograd_conformance.harness.counts import BACKWARD_PASSES
from autograd_conformance.reference import graph, walk
from autograd_conformance.reference.autograd import gradients
from autograd_conformance.reference.ops import copies
from autograd_conformance.reference.tensor import Tensor
from tests.broken import _reference, _torch
from tests.broken.registry import mutant


@mutant("LEAF-1")
def torch_leaf_flag_needs_requires_grad():
    """`is_leaf` is computed as `requires_grad and grad_fn is None`, so user-created tensors that
    do not require grad claim not to be leaves (torch: every tensor without a grad_fn is a leaf,
    by convention also those that do not require grad)."""
    _torch.patch_property("is_leaf", getter=lambda get, t: bool(t.requires_grad) and t.grad_fn is None)


@mutant("LEAF-3")
def torch_views_are_leaves():
    """`is_leaf` says True for views (reshape, transpose, indexing) of a tensor that requires grad,
    as an engine might that decides leafness by "owns no storage of its own" confusion: it
    treats a view as the leaf whose storage it shares."""
    _VIEW_NODES = ("ViewBackward0", "TransposeBackward0", "SelectBackward0", "SliceBackward0",
                   "UnsafeViewBackward0", "AsStridedBackward0", "TBackward0")
    _torch.patch_property("is_leaf", getter=lambda get, t: get(t) or
                          type(t.grad_fn).__name__ in _VIEW_NODES)


@mutant("LEAF-5", "BC-3")
def torch_grad_in_float32():
    """Gradients are accumulated in float32 whatever the leaf's dtype (the grad buffer is allocated
    with the default dtype), so a float64 leaf gets a float32 `.grad`."""
    def _backward(original, tensor, *args):
        leaves = _torch.graph_leaves(tensor)
        result = original(tensor, *args)
        for leaf in leaves:
            if leaf.grad is not None and leaf.grad.dtype == torch.float64:
                leaf.grad.data = leaf.grad.data.to(torch.float32)
        return result

    _torch.patch_backward(_backward)


@mutant("LEAF-6")
def torch_keeps_intermediate_grads():
    """Every intermediate result keeps its gradient after backward (as if retain_grad() were called
    on every op's result), the memory leak torch avoids by freeing non-leaf grads."""
    class _RetainAll(_torch.ResultMode):
        def on_result(self, func, args, result):
            if isinstance(result, torch.Tensor) and result.requires_grad and not result.is_leaf:
                result.retain_grad()
            return result

    _RetainAll().install()


@mutant("LEAF-8")
def torch_retain_grad_ignored():
    """`retain_grad()` is accepted but does nothing: the non-leaf's `.grad` stays None."""
    torch.Tensor.retain_grad = lambda self: None


@mutant("REQ-9")
def torch_constants_get_zero_grads():
    """Every float tensor the user creates gets a zero-filled `.grad` buffer, whether or not it
    requires grad (micrograd-style "every value has a grad"), so leaves that do not require grad
    show a zero gradient instead of None."""
    _FACTORIES = ("tensor", "zeros", "ones", "zeros_like", "ones_like")

    def _with_zero_grad(factory):
        def create(*args, **kwargs):
            tensor = factory(*args, **kwargs)
            if tensor.is_floating_point() and not tensor.requires_grad:
                tensor.grad = torch.zeros_like(tensor)
            return tensor
        return create

    return {name: _with_zero_grad(getattr(torch, name)) for name in _FACTORIES}


@mutant("MISC-3")
def torch_all_leaves_get_grads():
    """backward() first gives every tensor created with requires_grad=True a zero `.grad` (an
    engine that zero-initialises the grad of everything on its global tape), so leaves that take
    no part in the output end up with zeros instead of None."""
    _created = weakref.WeakSet()
    _FACTORIES = ("tensor", "zeros", "ones", "zeros_like", "ones_like")

    def _tracked(factory):
        def create(*args, **kwargs):
            tensor = factory(*args, **kwargs)
            if tensor.requires_grad:
                _created.add(tensor)
            return tensor
        return create

    def _backward(original, tensor, *args):
        for leaf in list(_created):
            if leaf.grad is None:
                leaf.grad = torch.zeros_like(leaf)
        return original(tensor, *args)

    _torch.patch_backward(_backward)
    return {name: _tracked(getattr(torch, name)) for name in _FACTORIES}


@mutant("LEAF-5", "OP-2")
def torch_mul_vjp_sign():
    """The product's backward gives the second operand -grad * a instead of grad * a: the sign of
    one op's vector-Jacobian product is wrong, everything else is torch."""
    class _Mul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            return grad * b, -grad * a

    _MUL = {"mul", "__mul__"}

    class _WrongMul(_torch.ArgsMode):
        def __torch_function__(self, func, types_, args=(), kwargs=None):
            if (getattr(func, "__name__", None) in _MUL and len(args) == 2 and not kwargs
                    and all(isinstance(a, torch.Tensor) for a in args) and torch.is_grad_enabled()
                    and any(a.requires_grad for a in args)):
                a, b = args
                return _Mul.apply(a, b)
            return func(*args, **(kwargs or {}))

    _WrongMul().install()


@mutant("LEAF-5", "BC-1", "INP-12", "VAL-3")
def reference_unreduced_broadcast():
    """The backward of binary ops forgets to sum a broadcast gradient back to the input's shape (it
    only casts the dtype)."""
    def _cast_only(original):
        def sum_to(grad, meta):
            shape, dtype = meta
            if grad.ndim < len(shape) or grad.shape == shape:
                return original(grad, meta)
            return original(grad, (grad.shape, dtype))
        return sum_to

    _reference.replace(reference.ops.common, "sum_to", _cast_only)


@mutant("LEAF-5")
def reference_shared_node_counted_once():
    """The backward walk counts the edges into a node as a set, so a node reached twice (a shared
    subexpression, a diamond) runs after its first contribution and the later ones are lost."""
    def _counted_once(original):
        def count(roots):
            dependents = original(roots)
            return {node: 1 for node in dependents}
        return count

    _reference.replace(reference.walk, "_count_dependents", _counted_once)


@mutant("LEAF-5", "BC-3")
def reference_float32_accumulation():
    """The first gradient of a leaf is stored in float32 whatever the leaf's dtype."""
    def _float32(original):
        def accumulate_into(tensor, grad):
            first = tensor._grad is None
            result = original(tensor, grad)
            if first and tensor._grad is not None and tensor._grad._array.dtype == np.float64:
                tensor._grad._array = tensor._grad._array.astype(np.float32)
            return result
        return accumulate_into

    _reference.replace(reference.graph, "accumulate_into", _float32)


@mutant("LEAF-4")
def reference_conversion_always_copies():
    """t.to(dtype) always converts: to t's own dtype it returns a copy that stays in the graph (a
    CloneBackward0 non-leaf) instead of t itself."""
    _to = Tensor.to

    def _always_copying(self, dtype):
        return copies.clone(self) if dtype == self.dtype else _to(self, dtype)

    Tensor.to = _always_copying


@mutant("LEAF-7")
def reference_non_leaf_grad_read_silently():
    """Reading .grad of a non-leaf that keeps none returns None without the warning."""
    Tensor.grad = property(lambda self: self._grad, Tensor.grad.fset)


@mutant("LEAF-9")
def reference_retain_grad_unchecked():
    """retain_grad() on a tensor that does not require grad is silently accepted instead of
    raising."""
    _retain_grad = Tensor.retain_grad

    def _unchecked(self):
        if self.requires_grad:
            _retain_grad(self)

    Tensor.retain_grad = _unchecked


@mutant("LEAF-10")
def reference_retained_grad_overwritten():
    """A retained non-leaf's .grad holds the last backward pass's gradient: each pass replaces it
    instead of adding to it."""
    def _overwriting(store_retained):
        def store_latest(tensor, grad):
            tensor._grad = None
            store_retained(tensor, grad)
        return store_latest

    _reference.replace(walk, "_store_retained", _overwriting)


@mutant("LEAF-10", corner=BACKWARD_PASSES)
def reference_retained_grad_overwritten_from_the_third_pass():
    """A retained non-leaf's .grad sums the first two passes, and each later pass replaces it by
    that pass's gradient alone."""
    passes = _reference.call_counter()

    def _overwriting(store_retained):
        def store(tensor, grad):
            if passes(tensor) >= 3:
                tensor._grad = None
            store_retained(tensor, grad)
        return store

    _reference.replace(walk, "_store_retained", _overwriting)


@mutant("LEAF-11")
def reference_grads_require_grad():
    """The gradient a leaf accumulates is stored as a tensor that requires grad, as if every
    backward built a graph."""
    def _requiring(accumulate_into):
        def accumulate_requiring(tensor, grad):
            accumulate_into(tensor, grad)
            tensor._grad._requires_grad = True
        return accumulate_requiring

    _reference.replace(graph, "accumulate_into", _requiring)


def _non_leaf_input_grads_replaced_where(replaced):
    """backward(inputs=[...]) of non-leaves: before each pass adds into their .grad, the tensors
    for which `replaced(t)` holds drop what earlier passes left there."""
    def _replacing(accumulator_of):
        def accumulator(tensors):
            accumulate = accumulator_of(tensors)
            if tensors[0].grad_fn is None:
                return accumulate

            def replace(grad):
                for t in tensors:
                    if replaced(t):
                        t._grad = None
                accumulate(grad)
            return replace
        return accumulator

    _reference.replace(gradients, "_accumulator_of", _replacing)


@mutant("LEAF-12")
def reference_non_leaf_input_grad_replaced():
    """backward(inputs=[h]) stores h's gradient in h.grad, but each pass replaces it instead of
    adding to it: right after one pass, wrong after two."""
    _non_leaf_input_grads_replaced_where(lambda tensor: True)


@mutant("LEAF-12", corner=BACKWARD_PASSES)
def reference_non_leaf_input_grad_replaced_from_the_third_pass():
    """backward(inputs=[h]) adds into a non-leaf h's .grad on the first two passes, and each later
    pass replaces it by that pass's gradient alone."""
    passes = _reference.call_counter()
    _non_leaf_input_grads_replaced_where(lambda tensor: passes(tensor) >= 3)


def _non_leaf_inputs_unretained_after(unretain):
    """backward(inputs=[...]): after the pass, `unretain(t)` for each non-leaf named that did not
    retain its gradient before it."""
    def _unretaining(backward):
        signature = inspect.signature(backward)

        def patched(*args, **kwargs):
            inputs = signature.bind(*args, **kwargs).arguments.get("inputs")
            named = [inputs] if isinstance(inputs, Tensor) else list(inputs or ())
            fresh = [t for t in named if t.grad_fn is not None and not t._retains_grad]
            result = backward(*args, **kwargs)
            for t in fresh:
                unretain(t)
            return result
        return patched

    _reference.replace(gradients, "backward", _unretaining)


@mutant("LEAF-16")
def reference_non_leaf_input_retained_for_its_pass_only():
    """backward(inputs=[h]) stores h's gradient for that pass only, the backward page's "all other
    tensors are ignored" read literally: h does not retain it afterwards, and later passes that
    do not name h leave h.grad alone."""
    def unretain(t):
        t._retains_grad = False
        t.grad_fn._retained = None
    _non_leaf_inputs_unretained_after(unretain)


@mutant("LEAF-16")
def reference_non_leaf_input_reports_retaining_but_stores_no_more():
    """After backward(inputs=[h]), h.retains_grad says True, but the store that retain_grad()
    installs on h.grad_fn is gone: a later plain backward() leaves h.grad as it was."""
    _non_leaf_inputs_unretained_after(lambda t: setattr(t.grad_fn, "_retained", None))


@mutant("LEAF-16")
def torch_backward_inputs_runs_the_whole_graph():
    """backward(inputs=[...]) runs the whole graph and then puts back the .grad of the leaves not
    named: their values are right (MISC-4), but every node runs, so a non-leaf that retains its
    gradient gets one from a pass that should not reach it."""
    def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
        if inputs is None:
            return original(tensor, gradient, retain_graph, create_graph, inputs)
        named = [inputs] if isinstance(inputs, torch.Tensor) else list(inputs)
        others = [leaf for leaf in _torch.graph_leaves(tensor)
                  if not any(leaf is t for t in named)]
        kept = [leaf.grad for leaf in others]
        for t in named:
            if t.grad_fn is not None:
                t.retain_grad()   # as torch gives a non-leaf named its gradient
        original(tensor, gradient, retain_graph, create_graph, None)
        for leaf, grad in zip(others, kept):
            leaf.grad = grad

    _torch.patch_backward(_backward)


@mutant("LEAF-15")
def reference_leaves_report_retains_grad():
    """retains_grad is True on every leaf that requires grad (a leaf does keep its gradient), where
    torch reports it for non-leaves after retain_grad() only."""
    Tensor.retains_grad = property(
        lambda self: self._retains_grad or (self.grad_fn is None and self._requires_grad))
