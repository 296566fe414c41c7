"""Breaks JAC-5. backward(gradient=v) ignores v and backpropagates ones."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, gradient, *args):
    if gradient is not None:
        gradient = torch.ones_like(tensor)
    return original(tensor, gradient, *args)


_torch.patch_backward(_backward)
