"""Breaks MISC-3. backward() first gives every tensor created with requires_grad=True a zero `.grad`
(an engine that zero-initialises the grad of everything on its global tape), so leaves that take no
part in the output end up with zeros instead of None."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

import weakref

_created = weakref.WeakSet()
_FACTORIES = ("tensor", "zeros", "ones", "zeros_like", "ones_like")


def _tracked(factory):
    def create(*args, **kwargs):
        tensor = factory(*args, **kwargs)
        if tensor.requires_grad:
            _created.add(tensor)
        return tensor
    return create


def _backward(original, tensor, *args):
    for leaf in list(_created):
        if leaf.grad is None:
            leaf.grad = torch.zeros_like(leaf)
    return original(tensor, *args)


globals().update({name: _tracked(getattr(torch, name)) for name in _FACTORIES})
_torch.patch_backward(_backward)
