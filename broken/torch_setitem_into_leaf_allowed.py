"""Breaks INP-3. Index assignment into a leaf that requires grad is silently performed instead of
raising RuntimeError."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_setitem = torch._C.TensorBase.__setitem__


def _permissive(self, key, value):
    if self.is_leaf and self.requires_grad and torch.is_grad_enabled():
        with torch.no_grad():
            return _setitem(self, key, value)
    return _setitem(self, key, value)


torch.Tensor.__setitem__ = _permissive
