"""Breaks GRAD-6. relu's backward masks with x >= 0, so the gradient at exactly 0 is 1 (torch: 0)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _Relu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.relu(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x >= 0).to(grad.dtype)


def relu(x):
    return _Relu.apply(x)
