"""Breaks REQ-10. backward() on a result that does not require grad returns silently instead of
raising RuntimeError."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, *args):
    if not tensor.requires_grad:
        return None
    return original(tensor, *args)


_torch.patch_backward(_backward)
