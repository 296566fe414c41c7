"""Breaks OPT-3. zero_grad(set_to_none=False) on optimizers and modules still sets grads to None
(the argument is ignored)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_module_zero_grad = torch.nn.Module.zero_grad
torch.nn.Module.zero_grad = lambda self, set_to_none=True: _module_zero_grad(self, True)


class SGD(torch.optim.SGD):
    def zero_grad(self, set_to_none: bool = True):
        super().zero_grad(True)


class Adam(torch.optim.Adam):
    def zero_grad(self, set_to_none: bool = True):
        super().zero_grad(True)


optim = _torch.Namespace(torch.optim, SGD=SGD, Adam=Adam)
