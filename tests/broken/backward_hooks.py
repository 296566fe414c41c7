"""Mutants of the catalog's chapter 'backward_hooks' (suites/test_backward_hooks.py): Hooks beyond
Tensor.register_hook: post-accumulate-grad, Node, nn.Module and multi-grad hooks, and when each
fires."""

import itertools
import weakref

import numpy as np
from torch.utils.hooks import BackwardHook

import autograd_conformance.reference.autograd.graph as autograd_graph
from autograd_conformance.harness.counts import BACKWARD_PASSES, HOOKS_PER_MODULE, HOOKS_PER_NODE, HOOKS_PER_TENSOR
from autograd_conformance.reference import graph, module_hooks, node_hooks, walk
from autograd_conformance.reference.tensor import Tensor, make
from tests.broken import _reference
from tests.broken.registry import mutant


@mutant("HOOK-9")
def reference_post_accumulate_hooks_before_accumulation():
    """A leaf's post-accumulate-grad hooks run just before the gradient is added to .grad, so they
    see the .grad of the previous passes (None in the first)."""
    def _hooks_first(accumulate_into):
        def accumulate_after_the_hooks(tensor, grad):
            hooks, tensor._post_accumulate_hooks = tensor._post_accumulate_hooks, None
            try:
                for hook in (hooks or {}).values():
                    hook(tensor)
                accumulate_into(tensor, grad)
            finally:
                tensor._post_accumulate_hooks = hooks
        return accumulate_after_the_hooks

    _reference.replace(graph, "accumulate_into", _hooks_first)


def _third_on_first(hooks):
    """Move the hook just added to the HookDict `hooks` in front of the others, from the third on:
    the first two run in registration order, each later one before them all."""
    if len(hooks) > 2:
        items = list(hooks.items())
        hooks.clear()
        hooks.update([items[-1], *items[:-1]])


@mutant("HOOK-9", corner=HOOKS_PER_TENSOR)
def reference_post_accumulate_hooks_after_the_second_run_first():
    """A leaf's first two post-accumulate hooks run in registration order, each later one before
    them all: only three or more hooks on one leaf show it."""
    register = Tensor.register_post_accumulate_grad_hook

    def _registered_third_on_first(self, hook):
        handle = register(self, hook)
        _third_on_first(self._post_accumulate_hooks)
        return handle

    Tensor.register_post_accumulate_grad_hook = _registered_third_on_first


@mutant("HOOK-9", corner=BACKWARD_PASSES)
def reference_post_accumulate_hooks_skipped_from_the_third_pass():
    """A leaf's post-accumulate hooks run after its first two accumulations only: from the third
    backward on, .grad is updated but the hooks stay silent."""
    accumulations = {}  # id(leaf): (a weak reference to it, its accumulations); tensors hash by id

    def _silent_from_the_third(accumulate_into):
        def accumulate(tensor, grad):
            leaf, count = accumulations.get(id(tensor), (None, 0))
            count = count + 1 if leaf is not None and leaf() is tensor else 1
            accumulations[id(tensor)] = (weakref.ref(tensor), count)
            if count < 3:
                return accumulate_into(tensor, grad)
            hooks, tensor._post_accumulate_hooks = tensor._post_accumulate_hooks, None
            try:
                return accumulate_into(tensor, grad)
            finally:
                tensor._post_accumulate_hooks = hooks
        return accumulate

    _reference.replace(graph, "accumulate_into", _silent_from_the_third)


@mutant("HOOK-12")
def reference_module_hook_result_ignored():
    """A module's full backward hooks get grad_input and grad_output, but what they return is
    dropped: grad_input cannot be replaced."""
    _on_inputs = module_hooks._HookedCall._on_inputs

    def _observing_only(self, grad_inputs, grad_outputs):
        _on_inputs(self, grad_inputs, grad_outputs)

    module_hooks._HookedCall._on_inputs = _observing_only


@mutant("HOOK-12", corner=HOOKS_PER_MODULE)
def reference_module_hooks_from_the_third_get_the_first_grads():
    """A module's first two backward hooks (and pre-hooks) each get the previous one's result,
    each later one the gradients the first one got, as if the chain restarted; the last result
    still replaces them: only three or more hooks of a kind on one module show it."""
    def _restarting(run):
        def chained_up_to_the_second(table, count, grads, call, miscount):
            first = grads
            for position, hook in enumerate(table.values()):
                grads = run({0: hook}, count, first if position >= 2 else grads, call, miscount)
            return grads
        return chained_up_to_the_second

    _reference.replace(module_hooks, "_run", _restarting)


@mutant("HOOK-14", "HOOK-15", corner=HOOKS_PER_NODE)
def reference_node_hooks_after_the_second_run_first():
    """A node's first two pre-hooks (and post-hooks) run in registration order, each later one
    before them all: only three or more hooks of a kind on one node show it."""
    register = node_hooks._register

    def _registered_third_on_first(node, kind, hook):
        handle = register(node, kind, hook)
        _third_on_first(node._node_hooks[kind])
        return handle

    node_hooks._register = _registered_third_on_first


@mutant("HOOK-14")
def reference_node_post_hook_result_ignored():
    """A node's post-hooks get grad_inputs and grad_outputs, but what they return is dropped: the
    node passes on the gradients it computed."""
    def _observing_only(call_posthooks):
        def posthooks(node, grad_inputs, grad):
            call_posthooks(node, grad_inputs, grad)
            return list(grad_inputs)
        return posthooks

    _reference.replace(node_hooks, "call_posthooks", _observing_only)


@mutant("HOOK-15")
def reference_node_pre_hook_result_ignored():
    """A node's pre-hooks get grad_outputs, but what they return is dropped: the node consumes the
    gradient that arrived."""
    def _observing_only(call_prehooks):
        def prehooks(node, grad):
            call_prehooks(node, grad)
            return grad
        return prehooks

    _reference.replace(node_hooks, "call_prehooks", _observing_only)


@mutant("HOOK-16")
def reference_grad_runs_its_inputs_nodes():
    """autograd.grad (and backward(inputs=...)) also runs the nodes of the tensors it
    differentiates for, as if they led to an input: the gradients are the same (what those nodes
    pass on reaches nothing that is needed), but their hooks fire."""
    def _with_the_inputs(leading_to):
        def leading_to_or_input(roots, targets):
            return leading_to(roots, targets) | set(targets)
        return leading_to_or_input

    _reference.replace(walk, "_leading_to", _with_the_inputs)


@mutant("HOOK-18")
def reference_retain_grad_after_node_prehooks():
    """retain_grad's store runs after the node's pre-hooks, as the autograd note lists the steps,
    where torch 2.13 runs it before them: a retained .grad holds the pre-hooks' replacement, and
    a pre-hook sees .grad not yet set."""
    _store_retained = walk._store_retained

    def _call_storing_after_the_prehooks(node, grad):
        if node._node_hooks is not None:
            grad = node_hooks.call_prehooks(node, grad)
        retained = node._retained() if node._retained is not None else None
        if retained is not None:
            _store_retained(retained, grad if isinstance(grad, Tensor) else make(np.asarray(grad)))
        outputs = node.backward(grad)
        return outputs if node._node_hooks is None else node_hooks.call_posthooks(node, outputs, grad)

    walk._store_retained = lambda tensor, grad: None  # not with the tensor hooks: in _call
    walk._call = _call_storing_after_the_prehooks


@mutant("HOOK-18", corner=HOOKS_PER_TENSOR)
def reference_tensor_hooks_from_the_third_kept_with_the_node_prehooks():
    """A non-leaf's first two tensor hooks run before its node's pre-hooks, each later one is kept
    with them, as the last pre-hook so far: it runs after retain_grad's store and after the
    pre-hooks registered before it. Only three or more tensor hooks on one tensor show it."""
    register = Tensor.register_hook

    def _kept_with_the_prehooks(self, hook):
        node = self.grad_fn
        if node is None or len(node._pre_hooks or ()) < 2:
            return register(self, hook)

        def as_prehook(grad_outputs):
            replaced = hook(grad_outputs[0])
            return None if replaced is None else (replaced,)

        return node.register_prehook(as_prehook)

    Tensor.register_hook = _kept_with_the_prehooks


@mutant("HOOK-19")
def reference_multi_grad_hook_waits_for_every_tensor():
    """A multi-grad hook in mode "all" waits for a gradient of every one of its tensors, not only
    of those the backward pass reaches: where one is not reached, it never fires."""
    autograd_graph._reached = lambda backward_pass, tensors: len(tensors)


@mutant("HOOK-19", corner=BACKWARD_PASSES)
def reference_multi_grad_hook_fires_twice_from_the_third_pass():
    """A multi-grad hook fires once in each of the first two backward passes that reach its
    tensors, and twice in each later one."""
    register = autograd_graph.register_multi_grad_hook

    def _twice_from_the_third(tensors, fn, *, mode="all"):
        passes = itertools.count(1)

        def fire(*args):
            fn(*args)
            if next(passes) >= 3:
                fn(*args)

        return register(tensors, fire, mode=mode)

    autograd_graph.register_multi_grad_hook = _twice_from_the_third


@mutant("HOOK-20")
def reference_node_metadata_not_kept():
    """grad_fn.metadata is a new empty dict at every access: what is stored in it is lost."""
    node_hooks.NodeHookMethods.metadata = property(lambda self: {})


@mutant("HOOK-21")
def reference_hooked_inputs_modifiable_in_place():
    """Only a hooked module's outputs are guarded against in-place ops: the identity node its
    inputs pass through is an unguarded copy, so forward may change an input that requires grad
    in place, which torch refuses."""
    guarded = module_hooks.BackwardHookFunctionBackward

    class BackwardHookFunctionBackward(graph.Node):
        backward = guarded.backward

    wrap_inputs = module_hooks._HookedCall.wrap_inputs

    def _unguarded_inputs(self, args):
        wrapped = wrap_inputs(self, args)
        for t in wrapped:
            if isinstance(t, Tensor) and isinstance(t.grad_fn, guarded):
                t.grad_fn.__class__ = BackwardHookFunctionBackward
        return wrapped

    module_hooks._HookedCall.wrap_inputs = _unguarded_inputs


@mutant("HOOK-22")
def torch_module_hooks_keep_their_grad_output():
    """A module's full backward hooks never let go of the grad_output they got: their state ignores
    the reset to None once the user hooks ran, so the last pass's grad_output lives as long as
    the module's output and its graph."""
    def _kept(hook_state, grad_outputs):
        if grad_outputs is not None:
            hook_state.__dict__["_mutant_grad_outputs"] = grad_outputs

    BackwardHook.grad_outputs = property(lambda hook_state: hook_state.__dict__.get("_mutant_grad_outputs"),
                                         _kept)
