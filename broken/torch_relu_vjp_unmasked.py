"""Breaks OP-5. relu's backward passes the gradient everywhere (it forgets the x > 0 mask)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _Relu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.relu(x)

    @staticmethod
    def backward(ctx, grad):
        return grad.clone()


def relu(x):
    return _Relu.apply(x)
