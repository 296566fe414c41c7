"""Breaks HOOK-4. The handle's remove() does nothing: removed hooks keep running."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_register_hook = torch.Tensor.register_hook


class _Handle:
    def __init__(self, handle):
        self.handle = handle

    def remove(self):
        return None


torch.Tensor.register_hook = lambda self, hook: _Handle(_register_hook(self, hook))
