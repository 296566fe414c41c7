"""Mutants of the catalog's chapter 'backward_hooks' (suites/test_backward_hooks.py): Hooks beyond
Tensor.register_hook: post-accumulate-grad, Node, nn.Module and multi-grad hooks, and when each
fires."""

import numpy as np

from autograd_conformance.reference import graph, module_hooks, node_hooks, walk
import autograd_conformance.reference.autograd.graph as autograd_graph
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


@mutant("HOOK-12")
def reference_module_hook_result_ignored():
    """A module's full backward hooks get grad_input and grad_output, but what they return is
    dropped: grad_input cannot be replaced."""
    _on_inputs = module_hooks._HookedCall._on_inputs

    def _observing_only(self, grad_inputs, grad_outputs):
        _on_inputs(self, grad_inputs, grad_outputs)

    module_hooks._HookedCall._on_inputs = _observing_only


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


@mutant("HOOK-19")
def reference_multi_grad_hook_waits_for_every_tensor():
    """A multi-grad hook in mode "all" waits for a gradient of every one of its tensors, not only
    of those the backward pass reaches: where one is not reached, it never fires."""
    autograd_graph._reached = lambda backward_pass, tensors: len(tensors)


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
