"""Breaks INP-9. Any in-place op on a tensor in the graph makes the next backward raise, even when no
node saved that tensor (a conservative version check over every tensor instead of saved ones)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_METHODS = ("add_", "mul_", "sub_", "div_")
_dirty = []


def _marking(method):
    def apply(self, *args, **kwargs):
        if self.requires_grad and not self.is_leaf:
            _dirty.append(True)
        return method(self, *args, **kwargs)
    return apply


def _backward(original, tensor, *args):
    if _dirty:
        _dirty.clear()
        raise RuntimeError("one of the variables needed for gradient computation has been modified "
                           "by an inplace operation")
    return original(tensor, *args)


for _name in _METHODS:
    setattr(torch.Tensor, _name, _marking(getattr(torch.Tensor, _name)))
_torch.patch_backward(_backward)
