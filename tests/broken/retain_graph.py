"""Mutants of the catalog's chapter 'retain_graph' (suites/test_retain_graph.py): Graph freeing and
retain_graph."""

import torch

from autograd_conformance import reference
from autograd_conformance.reference import graph, methods, walk
from autograd_conformance.reference.autograd import gradients
from autograd_conformance.reference.tensor import Tensor
from tests.broken import _reference, _torch
from tests.broken.registry import mutant


@mutant("RETAIN-1")
def torch_second_backward_allowed():
    """backward() frees nothing: the graph is always retained, so a second backward through saved
    tensors succeeds instead of raising."""
    def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
        return original(tensor, gradient, True, create_graph, inputs)

    _torch.patch_backward(_backward)


@mutant("RETAIN-3")
def torch_second_backward_always_raises():
    """After a backward without retain_graph, the whole graph is marked freed and any second
    backward from the same output raises, even when no node on the path saved tensors."""
    def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
        if getattr(tensor, "_mutant_freed", False):
            raise RuntimeError("Trying to backward through the graph a second time (or directly access "
                               "saved tensors after they have already been freed).")
        result = original(tensor, gradient, retain_graph, create_graph, inputs)
        if not (retain_graph or create_graph):
            tensor._mutant_freed = True
        return result

    _torch.patch_backward(_backward)


@mutant("RETAIN-4")
def torch_retain_graph_ignored():
    """`retain_graph=True` is ignored: every backward frees the graph, so the next backward through
    saved tensors raises."""
    def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
        return original(tensor, gradient, False, create_graph, inputs)

    _torch.patch_backward(_backward)


@mutant("RETAIN-1", "JAC-1", "REQ-1", "REQ-10")
def torch_value_errors():
    """The engine raises ValueError where torch raises RuntimeError (second backward, non-scalar
    backward, integer requires_grad, nothing requires grad)."""
    def _backward(original, tensor, *args):
        try:
            return original(tensor, *args)
        except RuntimeError as error:
            raise ValueError(str(error)) from None

    def tensor(*args, **kwargs):
        try:
            return torch.tensor(*args, **kwargs)
        except RuntimeError as error:
            raise ValueError(str(error)) from None

    _requires_grad_ = torch.Tensor.requires_grad_

    def _requires_grad_as_value_error(self, requires_grad=True):
        try:
            return _requires_grad_(self, requires_grad)
        except RuntimeError as error:
            raise ValueError(str(error)) from None

    torch.Tensor.requires_grad_ = _requires_grad_as_value_error
    _torch.patch_backward(_backward)
    return {"tensor": tensor}


@mutant("RETAIN-1")
def reference_graph_never_freed():
    """The backward walk never releases saved values, so a second backward without retain_graph
    succeeds."""
    def _keeping(original):
        def run_backward(roots, grads, keep_graph, create_graph, targets=None, run_targets=False):
            return original(roots, grads, True, create_graph, targets, run_targets)
        return run_backward

    _reference.replace(reference.walk, "run_backward", _keeping)


@mutant("RETAIN-5")
def reference_create_graph_frees():
    """retain_graph defaults to False instead of to create_graph, so a pass with create_graph=True
    frees the graph it differentiated."""
    def _false_by_default(arguments):
        if arguments["retain_graph"] is None:
            arguments["retain_graph"] = False

    _reference.rewrite_arguments(gradients, "backward", _false_by_default)
    _reference.rewrite_arguments(gradients, "grad", _false_by_default)


@mutant("RETAIN-6")
def reference_create_graph_always_retains():
    """create_graph=True keeps the graph even when retain_graph=False is passed explicitly."""
    def _retained_under_create_graph(arguments):
        if arguments["create_graph"]:
            arguments["retain_graph"] = True

    _reference.rewrite_arguments(gradients, "backward", _retained_under_create_graph)
    _reference.rewrite_arguments(gradients, "grad", _retained_under_create_graph)


@mutant("RETAIN-7")
def reference_freeing_unlinks_nodes():
    """A backward without retain_graph frees the graph by unlinking it: every node it ran loses its
    next_functions."""
    def _reachable(roots):
        seen, stack = set(), list(roots)
        while stack:
            node = stack.pop()
            if node is not None and node not in seen:
                seen.add(node)
                stack.extend(child for child, _ in node.next_functions)
        return seen

    def _unlinking(run_backward):
        def run_and_unlink(roots, grads, keep_graph, create_graph, targets=None, run_targets=False):
            nodes = _reachable([node for node, _ in roots])
            run_backward(roots, grads, keep_graph, create_graph, targets, run_targets)
            if not keep_graph:
                for node in nodes:
                    node.next_functions = ()
        return run_and_unlink

    _reference.replace(reference.walk, "run_backward", _unlinking)


@mutant("RETAIN-8")
def reference_frees_only_the_roots_node():
    """Backward releases the saved values of the root's own node only, so another output's backward
    through the shared part of the graph still succeeds."""
    def _freeing_roots(run_backward):
        def run_and_free_roots(roots, grads, keep_graph, create_graph, targets=None, run_targets=False):
            run_backward(roots, grads, True, create_graph, targets, run_targets)
            if not keep_graph:
                for node, _ in roots:
                    if node._saved:
                        node._saved = None
        return run_and_free_roots

    _reference.replace(reference.walk, "run_backward", _freeing_roots)


@mutant("RETAIN-11")
def reference_backward_positional_create_graph():
    """Tensor.backward takes create_graph as its second positional argument (backward(gradient,
    create_graph, retain_graph)), so backward(v, True) builds a graph."""
    def _backward(self, gradient=None, create_graph=False, retain_graph=None, inputs=None):
        methods._backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    Tensor.backward = _backward


@mutant("RETAIN-9")
def reference_leaves_spent_by_backward():
    """The engine keeps its graph per leaf, so backward without retain_graph marks every leaf it
    reached as spent, and any later backward that reaches a spent leaf raises the second-
    backward error, even through a graph built afresh by a new forward pass."""
    _spent = {}  # id -> leaf, kept alive so that an id is never reused

    def _spending_leaves(run_backward):
        def run_and_spend(roots, grads, keep_graph, create_graph, targets=None, run_targets=False):
            nodes = [node for node, _ in roots]
            reached = [node.variable for node in {*walk._count_dependents(nodes), *nodes}
                       if isinstance(node, graph.AccumulateGrad)]
            if any(id(leaf) in _spent for leaf in reached):
                raise RuntimeError(graph.FREED_MESSAGE)
            run_backward(roots, grads, keep_graph, create_graph, targets, run_targets)
            if not keep_graph:
                _spent.update((id(leaf), leaf) for leaf in reached)
        return run_and_spend

    _reference.replace(reference.walk, "run_backward", _spending_leaves)
