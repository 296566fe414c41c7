"""Mutants of the catalog's chapter 'values' (suites/test_values.py): Gradient values and dtypes
against three oracles."""

import numpy as np
import torch

from autograd_conformance.reference import creation
from autograd_conformance.reference.ops import elementwise
from autograd_conformance.reference.tensor import Tensor
from tests.broken import _reference, _torch
from tests.broken.registry import mutant


@mutant("VAL-4")
def reference_second_derivatives_in_float32():
    """tanh's differentiable backward (the create_graph path, which second derivatives go through)
    is off by float32 rounding, a relative 2**-24: float64 gradients taken with
    create_graph=True, and the second derivatives from them, are wrong in the eighth digit,
    while plain backward stays exact."""
    _backward = elementwise.TanhBackward0.backward

    def _rounded(self, grad):
        grads = _backward(self, grad)
        if not isinstance(grad, Tensor):
            return grads
        return tuple(None if g is None else g * (1.0 + 2.0 ** -24) for g in grads)

    elementwise.TanhBackward0.backward = _rounded


@mutant("VAL-1")
def torch_float64_grads_in_bfloat16():
    """Gradients of float64 leaves go through a bfloat16 accumulation buffer (a mixed-precision
    slip): the dtype is right, the values are only good to about 3 digits."""
    def _backward(original, tensor, *args):
        leaves = _torch.graph_leaves(tensor)
        result = original(tensor, *args)
        for leaf in leaves:
            grad = leaf.grad
            if grad is not None and grad.dtype == torch.float64:
                grad.data = grad.data.to(torch.bfloat16).to(torch.float64)
        return result

    _torch.patch_backward(_backward)


@mutant("VAL-2")
def torch_unary_ops_promote_to_float64():
    """exp, log, tanh, sigmoid and relu compute in float64 and return float64 (NumPy's default), so
    float32 programs do not stay in float32."""
    def _promoting(function):
        def apply(x):
            return function(x.double()) if x.dtype == torch.float32 else function(x)
        return apply

    return {name: _promoting(getattr(torch, name))
            for name in ("exp", "log", "tanh", "sigmoid", "relu")}


@mutant("VAL-1")
def reference_exp_backward_in_float32():
    """Only an oracle at float64 precision sees it."""
    def _backward(self, grad):
        result, = self.saved(grad)
        low = np.asarray(grad, dtype=np.float32) * np.asarray(result, dtype=np.float32)
        return (low.astype(np.asarray(grad).dtype),)

    elementwise.ExpBackward0.backward = _backward


@mutant("VAL-2")
def torch_float32_grads_slightly_off():
    """Breaks LEAF-5, almost: every float32 leaf's .grad comes out 0.1% too large (a relative error
    of 1e-3, as a fused or approximated kernel might give), while float64 gradients stay right."""
    def _backward(original, tensor, *args):
        leaves = _torch.graph_leaves(tensor)
        before = {id(leaf): None if leaf.grad is None else leaf.grad.clone() for leaf in leaves}
        result = original(tensor, *args)
        with torch.no_grad():
            for leaf in leaves:
                if leaf.grad is not None and leaf.grad.dtype == torch.float32:
                    old = before[id(leaf)]
                    added = leaf.grad - (0 if old is None else old)
                    leaf.grad.add_(added * 1e-3)
        return result

    _torch.patch_backward(_backward)


@mutant("MISC-7")
def reference_numpy_of_requiring_tensor():
    """numpy() returns the values of a tensor that requires grad instead of refusing it, silently
    leaving autograd."""
    Tensor.numpy = lambda self: self._array


@mutant("MISC-8")
def reference_tensor_of_tensor_keeps_graph():
    """tensor(t) of a tensor t is t.clone(): a copy that stays in t's graph, a non-leaf through
    which gradients reach what t was computed from."""
    def _cloning(tensor):
        def tensor_of(data, dtype=None, requires_grad=False, device=None):
            if isinstance(data, creation.Tensor) and dtype is None:
                copy = data.clone()
                return copy.requires_grad_() if requires_grad else copy
            return tensor(data, dtype, requires_grad, device)
        return tensor_of

    _reference.replace(creation, "tensor", _cloning)
