"""Breaks MODE-8. backward() called inside no_grad does nothing (the engine checks grad mode before
running the backward pass), so no gradients are stored."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, *args):
    if not torch.is_grad_enabled():
        return None
    return original(tensor, *args)


_torch.patch_backward(_backward)
