"""Breaks REQ-9. Every float tensor the user creates gets a zero-filled `.grad` buffer, whether or not
it requires grad (micrograd-style "every value has a grad"), so leaves that do not require grad show
a zero gradient instead of None."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_FACTORIES = ("tensor", "zeros", "ones", "zeros_like", "ones_like")


def _with_zero_grad(factory):
    def create(*args, **kwargs):
        tensor = factory(*args, **kwargs)
        if tensor.is_floating_point() and not tensor.requires_grad:
            tensor.grad = torch.zeros_like(tensor)
        return tensor
    return create


globals().update({name: _with_zero_grad(getattr(torch, name)) for name in _FACTORIES})
