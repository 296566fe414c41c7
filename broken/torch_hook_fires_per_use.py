"""Breaks HOOK-10. A hooked tensor fires its hooks once per use, each time with that use's
contribution, instead of once with their sum (the engine hooks every edge, not the tensor)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

import weakref

_register_hook = torch.Tensor.register_hook
_hooked = weakref.WeakKeyDictionary()


class _Handle:
    def __init__(self, hooks, hook):
        self.hooks, self.hook = hooks, hook

    def remove(self):
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)


def _register(self, hook):
    if self.is_leaf:
        return _register_hook(self, hook)
    hooks = _hooked.setdefault(self, [])
    hooks.append(hook)
    return _Handle(hooks, hook)


class _HookEveryUse(_torch.ArgsMode):
    def on_args(self, func, args):
        rewritten = []
        for arg in args:
            hooks = _hooked.get(arg) if isinstance(arg, torch.Tensor) else None
            if hooks:
                alias = arg.view_as(arg)
                for hook in list(hooks):
                    _register_hook(alias, hook)
                arg = alias
            rewritten.append(arg)
        return tuple(rewritten)


torch.Tensor.register_hook = _register
_HookEveryUse().install()
