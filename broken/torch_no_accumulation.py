"""Breaks ACC-1 (and RETAIN-4, whose second pass must double the gradient). backward() overwrites
`.grad` instead of accumulating into it."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, *args):
    for leaf in _torch.graph_leaves(tensor):
        leaf.grad = None
    return original(tensor, *args)


_torch.patch_backward(_backward)
