"""Breaks OP-3 (and VAL-3 where a program reaches exp). The namespace's exp has a backward that
passes the gradient through unchanged (d exp(x) taken as 1); torch itself, the differential oracle, is untouched."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.exp(x)

    @staticmethod
    def backward(ctx, grad):
        return grad.clone()


def exp(x):
    return _Exp.apply(x)
