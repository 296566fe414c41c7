"""Breaks HOOK-6. Hooks run in reverse registration order (each new hook is prepended)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_register_hook = torch.Tensor.register_hook


class _Handle:
    def __init__(self, hooks, hook):
        self.hooks, self.hook = hooks, hook

    def remove(self):
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)


def _register(self, hook):
    hooks = getattr(self, "_mutant_hooks", None)
    if hooks is None:
        hooks = self._mutant_hooks = []

        def run_all(grad):
            for each in list(hooks):
                result = each(grad)
                grad = grad if result is None else result
            return grad

        _register_hook(self, run_all)
    hooks.insert(0, hook)
    return _Handle(hooks, hook)


torch.Tensor.register_hook = _register
