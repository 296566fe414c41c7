"""Breaks OP-2. a / b gives b the gradient -grad * a / b instead of -grad * a / b ** 2."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _Div(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a / b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad / b, -grad * a / b


def _div(a, b, *rest, **kwargs):
    return _Div.apply(a, b) if _torch.both_tensors(a, b) and not rest and not kwargs \
        else NotImplemented


_torch.ReplaceOps({"div": _div, "__truediv__": _div}).install()
