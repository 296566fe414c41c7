"""Mutants of the catalog's chapter 'autograd_grad' (suites/test_autograd_grad.py): autograd.grad,
create_graph and backward(inputs=...)."""

import re
import warnings

import torch

from autograd_conformance.harness.counts import FUNCTION_OUTPUTS
from autograd_conformance.reference.autograd import gradients
from autograd_conformance.reference.autograd import graph as autograd_graph
from autograd_conformance.reference.ops import arithmetic
from autograd_conformance.reference.tensor import Tensor
from tests.broken import _reference, _torch
from tests.broken.registry import Namespace, mutant


@mutant("GRAD-1")
def torch_autograd_grad_accumulates():
    """autograd.grad is implemented with backward(inputs=...): it returns the right gradients but
    also accumulates them into the inputs' .grad."""
    def _grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
              allow_unused=None, **kwargs):
        single = isinstance(inputs, torch.Tensor)
        inputs = [inputs] if single else list(inputs)
        for tensor in inputs:
            if not tensor.is_leaf:
                tensor.retain_grad()
        torch.autograd.backward(outputs, grad_outputs, retain_graph, create_graph, inputs=inputs)
        return tuple(tensor.grad for tensor in inputs)

    autograd = Namespace(torch.autograd, grad=_grad)
    return {"autograd": autograd}


@mutant("GRAD-9", corner=FUNCTION_OUTPUTS)
def torch_autograd_grad_drops_the_outputs_after_the_second():
    """autograd.grad of a list of outputs differentiates only the first two (and their
    grad_outputs): right for one or two outputs."""
    _original_grad = torch.autograd.grad

    def _grad(outputs, inputs, grad_outputs=None, *args, **kwargs):
        if isinstance(outputs, (list, tuple)) and len(outputs) > 2:
            outputs = outputs[:2]
            grad_outputs = None if grad_outputs is None else grad_outputs[:2]
        return _original_grad(outputs, inputs, grad_outputs, *args, **kwargs)

    return {"autograd": Namespace(torch.autograd, grad=_grad)}


@mutant("GRAD-3")
def torch_only_inputs_honoured():
    """autograd.grad still honours the deprecated only_inputs: with only_inputs=False it silently
    also accumulates the gradients of every leaf into .grad, as backward would."""
    _original_grad = torch.autograd.grad

    def _grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
              only_inputs=True, **kwargs):
        if only_inputs:
            return _original_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, **kwargs)
        results = _original_grad(outputs, inputs, grad_outputs, True, create_graph, only_inputs=False,
                                 **kwargs)
        torch.autograd.backward(outputs, grad_outputs, retain_graph, create_graph)
        return results

    autograd = Namespace(torch.autograd, grad=_grad)
    return {"autograd": autograd}


@mutant("MISC-14")
def torch_create_graph_backward_silent():
    """backward(create_graph=True) gives no warning about the reference cycle between a parameter
    and its gradient."""
    def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Using backward\\(\\) with create_graph=True")
            return original(tensor, gradient, retain_graph, create_graph, inputs)

    _torch.patch_backward(_backward)


@mutant("GRAD-2")
def torch_autograd_grad_unused_zeros():
    """autograd.grad gives zeros for inputs the outputs do not depend on (as if allow_unused and
    materialize_grads were always on) instead of raising or returning None."""
    def _grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
              allow_unused=None, **kwargs):
        return torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                                   allow_unused=True, materialize_grads=True)

    autograd = Namespace(torch.autograd, grad=_grad)
    return {"autograd": autograd}


@mutant("GRAD-4")
def torch_autograd_grad_leaves_only():
    """autograd.grad refuses non-leaf inputs (the engine only accumulates into leaves)."""
    def _grad(outputs, inputs, *args, **kwargs):
        listed = [inputs] if isinstance(inputs, torch.Tensor) else list(inputs)
        if any(not tensor.is_leaf for tensor in listed):
            raise RuntimeError("autograd.grad: inputs must be leaf tensors")
        return torch.autograd.grad(outputs, inputs, *args, **kwargs)

    autograd = Namespace(torch.autograd, grad=_grad)
    return {"autograd": autograd}


@mutant("GRAD-8")
def torch_autograd_grad_empty_inputs_ok():
    """autograd.grad with an empty list of inputs returns an empty tuple instead of raising
    RuntimeError."""
    def _grad(outputs, inputs, *args, **kwargs):
        if not isinstance(inputs, torch.Tensor) and len(list(inputs)) == 0:
            return ()
        return torch.autograd.grad(outputs, inputs, *args, **kwargs)

    autograd = Namespace(torch.autograd, grad=_grad)
    return {"autograd": autograd}


@mutant("JAC-2")
def torch_autograd_grad_implicit_ones():
    """autograd.grad on a non-scalar output without grad_outputs silently uses ones."""
    def _grad(outputs, inputs, grad_outputs=None, *args, **kwargs):
        if grad_outputs is None:
            listed = [outputs] if isinstance(outputs, torch.Tensor) else list(outputs)
            grad_outputs = [torch.ones_like(output) for output in listed]
        return torch.autograd.grad(outputs, inputs, grad_outputs, *args, **kwargs)

    autograd = Namespace(torch.autograd, grad=_grad)
    return {"autograd": autograd}


@mutant("RETAIN-2")
def torch_autograd_grad_retains():
    """autograd.grad always keeps the graph (retain_graph defaults to True), so a second call
    through saved tensors succeeds instead of raising."""
    def _grad(outputs, inputs, grad_outputs=None, retain_graph=None, *args, **kwargs):
        return torch.autograd.grad(outputs, inputs, grad_outputs, True, *args, **kwargs)

    autograd = Namespace(torch.autograd, grad=_grad)
    return {"autograd": autograd}


@mutant("REQ-12")
def torch_autograd_grad_constants_zero():
    """autograd.grad with respect to a tensor that does not require grad returns zeros instead of
    raising RuntimeError."""
    def _grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
              allow_unused=None, **kwargs):
        single = isinstance(inputs, torch.Tensor)
        listed = [inputs] if single else list(inputs)
        live = [tensor for tensor in listed if tensor.requires_grad]
        grads = iter(torch.autograd.grad(outputs, live, grad_outputs, retain_graph, create_graph,
                                         allow_unused=allow_unused) if live else ())
        return tuple(next(grads) if tensor.requires_grad else torch.zeros_like(tensor)
                     for tensor in listed)

    autograd = Namespace(torch.autograd, grad=_grad)
    return {"autograd": autograd}


@mutant("MISC-4")
def torch_backward_ignores_inputs():
    """backward(inputs=[...]) ignores `inputs` and accumulates into every leaf."""
    def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
        return original(tensor, gradient, retain_graph, create_graph, None)

    _torch.patch_backward(_backward)


@mutant("HO-1")
def torch_create_graph_ignored():
    """autograd.grad accepts create_graph=True but does not record the backward pass (an engine
    without double backward), so the gradients cannot be differentiated again."""
    def _grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, **kwargs):
        return torch.autograd.grad(outputs, inputs, grad_outputs,
                                   retain_graph=retain_graph or create_graph, create_graph=False,
                                   **kwargs)

    autograd = Namespace(torch.autograd, grad=_grad)
    return {"autograd": autograd}


@mutant("HO-2")
def torch_backward_always_recorded():
    """autograd.grad always records the backward pass (create_graph is always on), so the returned
    gradients require grad and have a grad_fn."""
    def _grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, **kwargs):
        return torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph, True, **kwargs)

    autograd = Namespace(torch.autograd, grad=_grad)
    return {"autograd": autograd}


@mutant("HO-3")
def torch_backward_create_graph_ignored():
    """Tensor.backward ignores create_graph=True: the stored .grad is a constant."""
    def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
        return original(tensor, gradient, retain_graph or create_graph, False, inputs)

    _torch.patch_backward(_backward)


@mutant("HO-4")
def torch_double_backward_only():
    """Gradients are differentiable once but not twice: autograd.grad(create_graph=True) of
    something computed from a gradient that a create_graph backward returned ignores
    create_graph, as in an engine whose backward formulas support double backward only."""
    _ORDERS = {}     # id of a returned gradient's grad_fn -> how many backward passes made it
    _KEPT = []       # those grad_fns, kept alive so that their ids stay theirs

    def _order_of(outputs):
        """The most backward passes behind any node the outputs' graph reaches."""
        seen, order = set(), 0
        stack = [output.grad_fn for output in outputs]
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            order = max(order, _ORDERS.get(id(node), 0))
            stack.extend(next_node for next_node, _ in node.next_functions)
        return order

    def _grad(outputs, inputs, *args, create_graph=False, **kwargs):
        order = _order_of([outputs] if isinstance(outputs, torch.Tensor) else list(outputs)) + 1
        grads = torch.autograd.grad(outputs, inputs, *args, create_graph=create_graph and order < 2,
                                    **kwargs)
        for grad in grads:
            if grad is not None and grad.grad_fn is not None:
                _ORDERS[id(grad.grad_fn)] = order
                _KEPT.append(grad.grad_fn)
        return grads

    autograd = Namespace(torch.autograd, grad=_grad)
    return {"autograd": autograd}


@mutant("HO-5")
def reference_seed_gradient_requires_grad():
    """Under create_graph the seed gradients are leaves that require grad, so every gradient is
    recorded: the gradient of a function linear in x, a constant, requires grad (and its
    derivative is taken with respect to the seed)."""
    def _requiring_seeds(root_grads):
        def seeds(outputs, grad_outputs, as_tensors):
            grads = root_grads(outputs, grad_outputs, as_tensors)
            if not as_tensors:
                return grads
            return [grad if grad.requires_grad else grad.detach().requires_grad_() for grad in grads]
        return seeds

    _reference.replace(gradients, "_root_grads", _requiring_seeds)


@mutant("GRAD-9")
def torch_autograd_grad_first_output_only():
    """autograd.grad differentiates only the first of several outputs (with its grad_output),
    dropping the others' vector-Jacobian products."""
    def _grad(outputs, inputs, grad_outputs=None, *args, **kwargs):
        if not isinstance(outputs, torch.Tensor):
            outputs = outputs[0]
            if grad_outputs is not None and not isinstance(grad_outputs, torch.Tensor):
                grad_outputs = grad_outputs[0]
        return torch.autograd.grad(outputs, inputs, grad_outputs, *args, **kwargs)

    autograd = Namespace(torch.autograd, grad=_grad)
    return {"autograd": autograd}


@mutant("GRAD-10")
def reference_unused_index_from_one():
    """The unused-input error counts the inputs from 1: 'The differentiated Tensor at index 1 ...'
    for the first input."""
    def _counted_from_one(grad):
        def grad_counting_from_one(*args, **kwargs):
            try:
                return grad(*args, **kwargs)
            except RuntimeError as error:
                text = re.sub(r"at index (\d+)", lambda found: f"at index {int(found[1]) + 1}",
                              str(error))
                raise RuntimeError(text) from None
        return grad_counting_from_one

    _reference.replace(gradients, "grad", _counted_from_one)


@mutant("MISC-5")
def torch_backward_empty_inputs_means_all():
    """backward(inputs=[]) is taken as no restriction: it accumulates into every leaf instead of
    raising."""
    def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
        if inputs is not None and len(inputs) == 0:
            inputs = None
        return original(tensor, gradient, retain_graph, create_graph, inputs)

    _torch.patch_backward(_backward)


@mutant("MISC-6")
def torch_backward_returns_self():
    """Tensor.backward() returns the tensor it was called on (for chaining), not None."""
    def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
        original(tensor, gradient, retain_graph, create_graph, inputs)
        return tensor

    _torch.patch_backward(_backward)


@mutant("GRAD-11")
def torch_backward_inputs_must_be_reached():
    """backward(inputs=[...]) treats a named tensor that the pass did not reach as autograd.grad
    does without allow_unused: after accumulating into the others it raises RuntimeError."""
    def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
        original(tensor, gradient, retain_graph, create_graph, inputs)
        named = [inputs] if isinstance(inputs, torch.Tensor) else list(inputs or ())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # reading a non-leaf's .grad warns (LEAF-7)
            unreached = [index for index, t in enumerate(named) if t.grad is None]
        if unreached:
            raise RuntimeError(f"The differentiated Tensor at index {unreached[0]} appears to not have "
                               "been used in the graph.")

    _torch.patch_backward(_backward)


@mutant("GRAD-12")
def torch_backward_inputs_skips_their_nodes():
    """backward(inputs=[...]) is built on autograd.grad, accumulating what it returns into each
    input's .grad: the values are right, but a non-leaf input's grad_fn never runs, so its node
    hooks stay silent."""
    def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
        if inputs is None:
            return original(tensor, gradient, retain_graph, create_graph, inputs)
        named = [inputs] if isinstance(inputs, torch.Tensor) else list(inputs)
        grads = torch.autograd.grad(tensor, named, gradient, retain_graph, create_graph,
                                    allow_unused=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # reading a non-leaf's .grad warns (LEAF-7)
            for t, grad in zip(named, grads):
                if grad is not None:
                    t.grad = grad if t.grad is None else t.grad + grad
        return None

    _torch.patch_backward(_backward)


@mutant("GRAD-13")
def reference_gradient_edge_one_node_down():
    """get_gradient_edge(t) of a non-leaf t gives the edge of t.grad_fn's first input, one node
    below t: right for leaves, but autograd.grad then returns the gradient of that input."""
    def _one_down(get_gradient_edge):
        def edge_below(tensor):
            if tensor.grad_fn is None:
                return get_gradient_edge(tensor)
            node, output_nr = next(e for e in tensor.grad_fn.next_functions if e[0] is not None)
            return autograd_graph.GradientEdge(node, output_nr)
        return edge_below

    _reference.replace(autograd_graph, "get_gradient_edge", _one_down)


@mutant("GRAD-13")
def reference_gradient_edge_outputs_dropped():
    """autograd.grad takes the gradient edges among its outputs for tensors that need no
    gradient: it leaves them out, with their grad_outputs, and returns the gradients of the
    tensors alone (raising where only edges were given)."""
    def _without_edges(grad):
        def grad_of_tensors(outputs, inputs, grad_outputs=None, **kwargs):
            if isinstance(outputs, (list, tuple)) and not isinstance(outputs,
                                                                     autograd_graph.GradientEdge):
                kept = [k for k, out in enumerate(outputs)
                        if not isinstance(out, autograd_graph.GradientEdge)]
                outputs = [outputs[k] for k in kept]
                if grad_outputs is not None:
                    grad_outputs = [grad_outputs[k] for k in kept]
            return grad(outputs, inputs, grad_outputs, **kwargs)
        return grad_of_tensors

    _reference.replace(gradients, "grad", _without_edges)


@mutant("HO-6")
def reference_mul_gradient_mentions_its_operand():
    """Under create_graph, a * b's gradient for each operand is recorded with that operand in it,
    times zero (grad * b + 0 * a): right values, but the gradient of a * x with respect to x then
    depends on x, and differentiating it again gives zeros where torch gives None."""
    backward = arithmetic.MulBackward0.backward

    def with_a_zero_term(self, grad):
        grads = backward(self, grad)
        if not isinstance(grad, Tensor):
            return grads
        operands = self.saved(grad)  # (a, b), each saved where the other side requires grad
        return tuple(g if g is None or operand is None else g + 0 * operand
                     for g, operand in zip(grads, operands))

    arithmetic.MulBackward0.backward = with_a_zero_term
