"""Breaks BC-1. The gradient of a broadcast operand of +, - and * is reduced to its shape by mean
instead of sum over the broadcast dimensions."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



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
