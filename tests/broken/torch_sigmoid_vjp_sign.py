"""Breaks LEAF-5, JAC-5 and JAC-6. sigmoid's backward returns -grad * s * (1 - s): the sign of one op's
vector-Jacobian product is wrong, everything else is torch."""

import torch

from tests.broken import _torch
from tests.broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = torch.sigmoid(x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return -grad * result * (1 - result)


def sigmoid(x):
    return _Sigmoid.apply(x)
