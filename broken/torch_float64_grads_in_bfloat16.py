"""Breaks VAL-1. Gradients of float64 leaves go through a bfloat16 accumulation buffer (a
mixed-precision slip): the dtype is right, the values are only good to about 3 digits."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, *args):
    leaves = _torch.graph_leaves(tensor)
    result = original(tensor, *args)
    for leaf in leaves:
        grad = leaf.grad
        if grad is not None and grad.dtype == torch.float64:
            grad.data = grad.data.to(torch.bfloat16).to(torch.float64)
    return result


_torch.patch_backward(_backward)
