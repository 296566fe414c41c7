"""Breaks HOOK-5. register_hook on a tensor that does not require grad returns a handle whose hook
never runs, instead of raising RuntimeError."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_register_hook = torch.Tensor.register_hook


class _Handle:
    def remove(self):
        return None


def _register(self, hook):
    if not self.requires_grad:
        return _Handle()
    return _register_hook(self, hook)


torch.Tensor.register_hook = _register
