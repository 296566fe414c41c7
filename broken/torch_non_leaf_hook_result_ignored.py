"""Breaks HOOK-2. A hook's return value is ignored on non-leaves: the original gradient flows on to
the inputs."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_register_hook = torch.Tensor.register_hook


def _register(self, hook):
    if not self.is_leaf:
        return _register_hook(self, lambda grad: (hook(grad), None)[1])
    return _register_hook(self, hook)


torch.Tensor.register_hook = _register
