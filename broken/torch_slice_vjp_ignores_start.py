"""Breaks OP-8. x[i:j]'s backward writes the gradient at rows 0 .. j - i - 1 instead of i .. j - 1
(the slice's start offset is forgotten)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _Slice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, start, stop):
        ctx.shape = x.shape
        return x[start:stop].clone()

    @staticmethod
    def backward(ctx, grad):
        full = grad.new_zeros(ctx.shape)
        full[: grad.shape[0]] = grad
        return full, None, None


def _getitem(x, key):
    if isinstance(key, slice) and key.step is None and x.dim() >= 1:
        start, stop, _ = key.indices(x.shape[0])
        if start < stop:
            return _Slice.apply(x, start, stop)
    return NotImplemented


_torch.ReplaceOps({"__getitem__": _getitem}).install()
