"""Breaks OP-6 and BC-5. mean(dim=d)'s backward divides by numel() instead of size(d)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _MeanDim(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.shape, ctx.dim = x.shape, dim
        return x.mean(dim=dim)

    @staticmethod
    def backward(ctx, grad):
        numel = 1
        for size in ctx.shape:
            numel *= size
        return grad.unsqueeze(ctx.dim).expand(ctx.shape) / numel, None


def _mean(x, *args, **kwargs):
    dim = kwargs.pop("dim", args[0] if args else None)
    if dim is None or kwargs or len(args) > 1 or not isinstance(dim, int):
        return NotImplemented
    return _MeanDim.apply(x, dim)


_torch.ReplaceOps({"mean": _mean}).install()
