"""Breaks OP-4. x ** k's backward computes k * |x| ** (k - 1) (pow through exp(k log|x|)), wrong for
negative bases with even k - 1."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _Pow(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x ** k

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * ctx.k * x.abs() ** (ctx.k - 1), None


def _pow(x, k, *rest):
    return _Pow.apply(x, k) if isinstance(k, int) and not rest else NotImplemented


_torch.ReplaceOps({"pow": _pow, "__pow__": _pow}).install()
