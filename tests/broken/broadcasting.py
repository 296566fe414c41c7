"""Mutants of the catalog's chapter 'broadcasting' (suites/test_broadcasting.py): Gradients of
broadcast inputs."""

import torch

from autograd_conformance.reference.ops import common
from autograd_conformance.reference.tensor import Tensor
from tests.broken import _reference, _torch
from tests.broken.registry import mutant


@mutant("BC-1")
def torch_broadcast_grads_averaged():
    """The gradient of a broadcast operand of +, - and * is reduced to its shape by mean instead of
    sum over the broadcast dimensions."""
    class _Binary(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, op):
            ctx.op = op
            ctx.save_for_backward(a, b)
            return {"add": torch.add, "sub": torch.sub, "mul": torch.mul}[op](a, b)

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            grad_a, grad_b = {"add": (grad, grad), "sub": (grad, -grad),
                              "mul": (grad * b, grad * a)}[ctx.op]
            return (_torch.reduce_to(grad_a, a.shape, "mean"), _torch.reduce_to(grad_b, b.shape, "mean"),
                    None)

    def _binary(op):
        def apply(a, b, *rest, **kwargs):
            if _torch.both_tensors(a, b) and not rest and not kwargs and a.shape != b.shape:
                return _Binary.apply(a, b, op)
            return NotImplemented
        return apply

    _torch.ReplaceOps({"add": _binary("add"), "sub": _binary("sub"),
                       "mul": _binary("mul")}).install()


@mutant("BC-2")
def torch_zero_dim_grads_as_vectors():
    """A 0-dim tensor's .grad is stored as a one-element vector of shape (1,)."""
    _torch.patch_property("grad", getter=lambda get, t: None if get(t) is None else
                          (get(t).reshape(1) if get(t).dim() == 0 else get(t)))


@mutant("BC-7")
def reference_sum_to_drops_the_leading_dims():
    """sum_to sums the dims broadcasting added away (keepdim=False), then the stretched ones keeping
    them, as NumPy-style unbroadcasting does: the right values, but under create_graph a (4,)
    input's gradient from (3, 4) is SumBackward1 alone instead of a ViewBackward0 of a sum that
    kept the dims."""
    def _leading_dims_dropped(sum_to):
        def sum_to_without_view(grad, meta):
            lead = tuple(range(grad.ndim - len(meta[0])))
            if lead and meta[0]:
                grad = grad.sum(lead) if isinstance(grad, Tensor) else grad.sum(axis=lead)
            return sum_to(grad, meta)
        return sum_to_without_view

    _reference.replace(common, "sum_to", _leading_dims_dropped)
