"""Breaks OP-1. a - b passes +grad to b (the subtrahend's sign is dropped in backward)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _Sub(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a - b

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


def _sub(a, b, *rest, **kwargs):
    return _Sub.apply(a, b) if _torch.both_tensors(a, b) and not rest and not kwargs \
        else NotImplemented


def _rsub(a, b):
    return _Sub.apply(b, a) if _torch.both_tensors(a, b) else NotImplemented


_torch.ReplaceOps({"sub": _sub, "__sub__": _sub, "__rsub__": _rsub}).install()
