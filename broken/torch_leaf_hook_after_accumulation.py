"""Breaks HOOK-7. A leaf's hook is applied to the accumulated .grad after each pass, instead of to
the pass's own gradient before accumulation."""

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
        self.handle.remove()


def _register(self, hook):
    if not self.is_leaf:
        return _register_hook(self, hook)

    def after(tensor):
        result = hook(tensor.grad)
        if result is not None:
            tensor.grad = result

    return _Handle(self.register_post_accumulate_grad_hook(after))


torch.Tensor.register_hook = _register
