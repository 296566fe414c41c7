"""Mutants of the catalog's chapter 'jacobian' (suites/test_jacobian.py): Non-scalar backward,
vector-Jacobian products and Jacobians."""

import torch

from autograd_conformance.harness.counts import FUNCTION_OUTPUTS
from autograd_conformance.reference import methods
from autograd_conformance.reference.autograd import gradients
from autograd_conformance.reference.tensor import Tensor
from tests.broken import _reference, _torch
from tests.broken.registry import Namespace, mutant


@mutant("JAC-1")
def torch_implicit_ones_gradient():
    """backward() without a gradient on a non-scalar output silently uses ones (summing the output)
    instead of raising RuntimeError."""
    def _backward(original, tensor, gradient, *args):
        if gradient is None and tensor.numel() != 1:
            gradient = torch.ones_like(tensor)
        return original(tensor, gradient, *args)

    _torch.patch_backward(_backward)


@mutant("JAC-3")
def torch_scalar_check_by_ndim():
    """The implicit gradient is only created for 0-d outputs (`ndim == 0` instead of `numel() ==
    1`), so backward() on a one-element output of shape (1,) or (1, 1) raises."""
    def _backward(original, tensor, gradient, *args):
        if gradient is None and tensor.dim() != 0:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        return original(tensor, gradient, *args)

    _torch.patch_backward(_backward)


@mutant("JAC-5")
def torch_backward_ignores_gradient():
    """backward(gradient=v) ignores v and backpropagates ones."""
    def _backward(original, tensor, gradient, *args):
        if gradient is not None:
            gradient = torch.ones_like(tensor)
        return original(tensor, gradient, *args)

    _torch.patch_backward(_backward)


@mutant("JAC-6")
def torch_retained_gradient_cached():
    """A retained graph caches the gradient of its first backward: later backward(e_i,
    retain_graph=True) calls reuse the first gradient, so every Jacobian row equals row 0."""
    def _backward(original, tensor, gradient, retain_graph, *args):
        if retain_graph:
            cached = getattr(tensor, "_mutant_cached_gradient", None)
            if cached is not None:
                gradient = cached
            elif gradient is not None:
                tensor._mutant_cached_gradient = gradient.clone()
        return original(tensor, gradient, retain_graph, *args)

    _torch.patch_backward(_backward)


@mutant("JAC-8")
def torch_functional_jacobian_transposed():
    """autograd.functional.jacobian returns d input / d output order (the transpose of torch's
    output-dims-first layout), a common convention slip."""
    def _jacobian(func, inputs, *args, **kwargs):
        jacobian = torch.autograd.functional.jacobian(func, inputs, *args, **kwargs)
        in_dims = inputs.dim()
        out_dims = jacobian.dim() - in_dims
        order = list(range(out_dims, out_dims + in_dims)) + list(range(out_dims))
        return jacobian.permute(order).contiguous()

    autograd = Namespace(torch.autograd,
                                functional=Namespace(torch.autograd.functional,
                                                            jacobian=_jacobian))
    return {"autograd": autograd}


@mutant("JAC-7")
def torch_explicit_gradient_overwrites():
    """backward(gradient) with an explicit gradient stores its vector-Jacobian product in .grad
    instead of adding it to what earlier passes left there."""
    def _backward(original, tensor, gradient, *args):
        if gradient is not None:
            for leaf in _torch.graph_leaves(tensor):
                leaf.grad = None
        return original(tensor, gradient, *args)

    _torch.patch_backward(_backward)


@mutant("JAC-12")
def reference_integer_gradient_refused():
    """backward(gradient) refuses a gradient that is not floating point instead of casting it to
    the output's dtype."""
    def _floats_only(root_grads):
        def checked_root_grads(outputs, grad_outputs, as_tensors):
            given = [grad_outputs] if isinstance(grad_outputs, Tensor) else grad_outputs or []
            if any(isinstance(g, Tensor) and not g.dtype.is_floating_point for g in given):
                raise RuntimeError("gradients must be floating point tensors")
            return root_grads(outputs, grad_outputs, as_tensors)
        return checked_root_grads

    _reference.replace(gradients, "_root_grads", _floats_only)


@mutant("JAC-14")
def reference_roots_without_gradients_dropped():
    """autograd.backward pairs roots and gradients without checking their counts: the roots after
    the last gradient are silently dropped."""
    def _truncating(root_grads):
        def paired_root_grads(outputs, grad_outputs, as_tensors):
            if grad_outputs is not None and not isinstance(grad_outputs, Tensor):
                outputs = outputs[:len(tuple(grad_outputs))]
            return root_grads(outputs, grad_outputs, as_tensors)
        return paired_root_grads

    _reference.replace(gradients, "_root_grads", _truncating)


@mutant("JAC-14", corner=FUNCTION_OUTPUTS)
def reference_second_and_last_roots_swap_gradients():
    """autograd.backward of three or more roots gives the second root the last gradient and the
    last root the second one: right for one or two roots."""
    def _swapped(root_grads):
        def root_grads_swapped(outputs, grad_outputs, as_tensors):
            if (grad_outputs is not None and not isinstance(grad_outputs, Tensor)
                    and len(grad_outputs) >= 3):
                grad_outputs = (grad_outputs[0], grad_outputs[-1], *grad_outputs[2:-1],
                                grad_outputs[1])
            return root_grads(outputs, grad_outputs, as_tensors)
        return root_grads_swapped

    _reference.replace(gradients, "_root_grads", _swapped)


@mutant("JAC-15")
def reference_backward_gradient_named_grad_tensors():
    """Tensor.backward names its gradient argument grad_tensors, as autograd.backward does, so
    backward(gradient=v) is a TypeError."""
    def _backward(self, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
        methods._backward(self, grad_tensors, retain_graph, create_graph, inputs=inputs)

    Tensor.backward = _backward


@mutant("JAC-16")
def reference_requiring_gradient_builds_graph():
    """A backward whose gradient requires grad runs as under create_graph=True, so the grads it
    stores require grad."""
    def _recorded_for_requiring_gradients(arguments):
        given = arguments["grad_tensors"]
        given = [given] if isinstance(given, Tensor) else given or []
        if any(isinstance(g, Tensor) and g.requires_grad for g in given):
            arguments["create_graph"] = True

    _reference.rewrite_arguments(gradients, "backward", _recorded_for_requiring_gradients)


@mutant("JAC-17")
def reference_one_element_gradient_ignored():
    """backward(c) on a one-element output ignores c and backpropagates ones, as backward() does."""
    def _ones_for_one_element(root_grads):
        def implicit_root_grads(outputs, grad_outputs, as_tensors):
            if grad_outputs is not None:
                given = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs)
                grad_outputs = [None if g is not None and out.numel() == 1 else g
                                for out, g in zip(gradients._as_tuple(outputs), given)]
            return root_grads(outputs, grad_outputs, as_tensors)
        return implicit_root_grads

    _reference.replace(gradients, "_root_grads", _ones_for_one_element)


@mutant("JAC-18")
def reference_none_gradient_needs_a_scalar_root():
    """A None gradient is taken as the implicit ones for every root, also one that does not require
    grad: for such a root of several elements the call raises 'grad can be implicitly created
    only for scalar outputs' instead of naming the root that does not require grad."""
    def _implicit_for_all(root_grads):
        def root_grads_checking_every_none(outputs, grad_outputs, as_tensors):
            given = (None,) * len(outputs) if grad_outputs is None else gradients._as_tuple(grad_outputs)
            for out, grad in zip(outputs, given):
                if grad is None and out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
            return root_grads(outputs, grad_outputs, as_tensors)
        return root_grads_checking_every_none

    _reference.replace(gradients, "_root_grads", _implicit_for_all)
