"""Breaks REQ-13. backward() on a leaf raises (the engine starts the backward pass from grad_fn and has
none for a leaf) instead of storing the gradient in the leaf's own .grad."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, *args):
    if tensor.grad_fn is None and tensor.requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    return original(tensor, *args)


_torch.patch_backward(_backward)
