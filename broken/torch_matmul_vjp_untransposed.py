"""Breaks OP-7. a @ b's backward for a computes grad @ b instead of grad @ b.T (wrong values for
square b, a shape error otherwise)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _Matmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = grad @ b if b.shape[0] == b.shape[1] else grad @ b.T * 0
        return grad_a, a.T @ grad


def _matmul(a, b):
    if _torch.both_tensors(a, b) and a.dim() == 2 and b.dim() == 2:
        return _Matmul.apply(a, b)
    return NotImplemented


_torch.ReplaceOps({"matmul": _matmul, "__matmul__": _matmul}).install()
