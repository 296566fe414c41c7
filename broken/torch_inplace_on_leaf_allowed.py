"""Breaks INP-1 (and MSG-6). In-place ops on a leaf that requires grad are silently performed (as if
under no_grad) instead of raising RuntimeError."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_METHODS = ("add_", "mul_", "zero_", "copy_", "sub_", "div_")


def _permissive(method):
    def apply(self, *args, **kwargs):
        if self.is_leaf and self.requires_grad and torch.is_grad_enabled():
            with torch.no_grad():
                return method(self, *args, **kwargs)
        return method(self, *args, **kwargs)
    return apply


for _name in _METHODS:
    setattr(torch.Tensor, _name, _permissive(getattr(torch.Tensor, _name)))
