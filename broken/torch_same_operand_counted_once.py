"""Breaks MISC-2. When both operands of * or + are the same tensor, backward credits only one slot
(x * x gives x, x + x gives 1), as an engine that keys input gradients by tensor would."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x


class _Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x + x

    @staticmethod
    def backward(ctx, grad):
        return grad.clone()


def _same(function):
    def apply(a, b=None, *rest, **kwargs):
        if isinstance(a, torch.Tensor) and b is a and not rest and not kwargs:
            return function.apply(a)
        return NotImplemented
    return apply


_torch.ReplaceOps({"mul": _same(_Square), "__mul__": _same(_Square), "add": _same(_Double),
                   "__add__": _same(_Double)}).install()
