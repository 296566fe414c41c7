"""Breaks OPT-3. zero_grad(set_to_none=False) on optimizers and modules gives every parameter a zero
.grad, also those whose .grad was None (it writes zeros instead of zeroing what exists)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _fill_zeros(parameters, zero_grad, set_to_none):
    if set_to_none:
        return zero_grad(True)
    for parameter in parameters:
        parameter.grad = torch.zeros_like(parameter)


_module_zero_grad = torch.nn.Module.zero_grad
torch.nn.Module.zero_grad = lambda self, set_to_none=True: _fill_zeros(
    self.parameters(), lambda flag: _module_zero_grad(self, flag), set_to_none)


class SGD(torch.optim.SGD):
    def zero_grad(self, set_to_none: bool = True):
        _fill_zeros([p for group in self.param_groups for p in group["params"]],
                    super().zero_grad, set_to_none)


class Adam(torch.optim.Adam):
    def zero_grad(self, set_to_none: bool = True):
        _fill_zeros([p for group in self.param_groups for p in group["params"]],
                    super().zero_grad, set_to_none)


optim = _torch.Namespace(torch.optim, SGD=SGD, Adam=Adam)
