"""Mutants of the catalog's chapter 'accumulation' (suites/test_accumulation.py): Gradient
accumulation and zeroing."""

import numpy as np
import torch

from autograd_conformance import reference
from autograd_conformance.harness.counts import BACKWARD_PASSES
from autograd_conformance.reference import creation, graph
from autograd_conformance.reference.tensor import Tensor, make
from tests.broken import _reference, _torch
from tests.broken.registry import Namespace, mutant


@mutant("ACC-1", "RETAIN-4", "SEQ-1")
def torch_no_accumulation():
    """backward() overwrites `.grad` instead of accumulating into it."""
    def _backward(original, tensor, *args):
        for leaf in _torch.graph_leaves(tensor):
            leaf.grad = None
        return original(tensor, *args)

    _torch.patch_backward(_backward)


@mutant("ACC-1", "LEAF-9", "REQ-13", "RETAIN-9", corner=BACKWARD_PASSES)
def torch_accumulation_overwrites_from_the_third_pass():
    """Each leaf counts the backward passes that reach it: the first two add into .grad, each
    later one overwrites it, so .grad is right after one or two passes and one pass's from the
    third on."""
    def _backward(original, tensor, *args):
        for leaf in _torch.graph_leaves(tensor):
            leaf._mutant_passes = getattr(leaf, "_mutant_passes", 0) + 1
            if leaf._mutant_passes >= 3:
                leaf.grad = None
        return original(tensor, *args)

    _torch.patch_backward(_backward)


@mutant("ACC-6")
def torch_grad_returns_copy():
    """Reading `.grad` returns a copy of the gradient buffer, so `x.grad.zero_()` zeroes the copy
    and the next backward accumulates onto the old gradient."""
    _torch.patch_property("grad", getter=lambda get, t: None if get(t) is None else get(t).clone())


@mutant("ACC-8")
def torch_grad_none_hides_buffer():
    """`x.grad = None` only hides the gradient: reading it gives None, but the accumulation buffer
    is kept, so the next backward adds onto the old gradient."""
    def _set(set_, tensor, value):
        if value is None and _torch.base_property("grad").__get__(tensor) is not None:
            tensor._mutant_hidden = True
            return
        tensor._mutant_hidden = False
        set_(tensor, value)

    def _get(get, tensor):
        return None if getattr(tensor, "_mutant_hidden", False) else get(tensor)

    def _backward(original, tensor, *args):
        leaves = _torch.graph_leaves(tensor)
        result = original(tensor, *args)
        for leaf in leaves:
            leaf._mutant_hidden = False
        return result

    _torch.patch_property("grad", getter=_get, setter=_set)
    _torch.patch_backward(_backward)


@mutant("ACC-9")
def torch_optimizer_zero_grad_fills_zeros():
    """`optimizer.zero_grad()` defaults to set_to_none=False (torch before 2.0): the parameters'
    grads become zero tensors instead of None."""
    class SGD(torch.optim.SGD):
        def zero_grad(self, set_to_none: bool = False):
            super().zero_grad(set_to_none=set_to_none)

    class Adam(torch.optim.Adam):
        def zero_grad(self, set_to_none: bool = False):
            super().zero_grad(set_to_none=set_to_none)

    optim = Namespace(torch.optim, SGD=SGD, Adam=Adam)
    return {"SGD": SGD, "Adam": Adam, "optim": optim}


@mutant("ACC-10")
def torch_module_zero_grad_fills_zeros():
    """`module.zero_grad()` defaults to set_to_none=False (torch before 2.0): every parameter's
    grad becomes a zero tensor instead of None."""
    _zero_grad = torch.nn.Module.zero_grad
    torch.nn.Module.zero_grad = lambda self, set_to_none=False: _zero_grad(self, set_to_none)


@mutant("ACC-4")
def reference_create_graph_accumulates_in_place():
    """Under create_graph=True a second pass adds its gradient into the existing .grad tensor in
    place, so the tensor of the first pass changes under whoever holds it, instead of .grad
    becoming a new tensor that holds the sum."""
    _accumulate_into = graph.accumulate_into

    def _in_place(tensor, grad):
        if isinstance(grad, graph.Tensor) and tensor._grad is not None:
            tensor._grad._array += grad._array
        else:
            _accumulate_into(tensor, grad)

    graph.accumulate_into = _in_place


@mutant("ACC-1", "RETAIN-4")
def reference_no_accumulation():
    """AccumulateGrad overwrites .grad instead of adding to it."""
    def _overwriting(original):
        def accumulate_into(tensor, grad):
            tensor._grad = None
            return original(tensor, grad)
        return accumulate_into

    _reference.replace(reference.graph, "accumulate_into", _overwriting)


@mutant("ACC-1")
def reference_accumulation_in_float32():
    """The dtype stays right; only the precision is lost."""
    def _through_float32(original):
        def accumulate_into(tensor, grad):
            existing = tensor._grad is not None and not isinstance(grad, reference.Tensor)
            result = original(tensor, grad)
            if existing:
                array = tensor._grad._array
                array[...] = array.astype(np.float32).astype(array.dtype)
            return result
        return accumulate_into

    _reference.replace(reference.graph, "accumulate_into", _through_float32)


@mutant("ACC-7")
def reference_data_copies():
    """Tensor.data is a detached copy of the values rather than an alias of the storage:
    x.grad.data.zero_() zeros the copy and leaves x.grad as it was."""
    def _copied_data(self):
        return make(self._array.copy())

    Tensor.data = property(_copied_data, Tensor.data.fset)


@mutant("ACC-11")
def reference_grads_start_at_zero():
    """As in micrograd, a tensor made to require grad starts with a zero gradient instead of None:
    .grad holds zeros before any backward (the sums that later passes accumulate are unchanged)."""
    def _zero_grads(leaf):
        def leaf_with_zero_grad(array, requires_grad):
            tensor = leaf(array, requires_grad)
            if requires_grad:
                tensor._grad = make(np.zeros_like(array))
            return tensor
        return leaf_with_zero_grad

    _reference.replace(creation, "_leaf", _zero_grads)
