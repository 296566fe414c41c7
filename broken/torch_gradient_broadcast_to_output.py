"""Breaks JAC-11. backward(gradient) broadcasts a gradient of another shape to the output's shape
instead of raising RuntimeError."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, gradient, *args):
    if gradient is not None and tuple(gradient.shape) != tuple(tensor.shape):
        try:
            gradient = gradient.expand_as(tensor).clone()
        except RuntimeError:
            gradient = gradient.reshape(tensor.shape) if gradient.numel() == tensor.numel() \
                else gradient
    return original(tensor, gradient, *args)


_torch.patch_backward(_backward)
