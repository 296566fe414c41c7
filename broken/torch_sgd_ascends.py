"""Breaks OPT-1. SGD.step() adds lr * grad instead of subtracting it (gradient ascent)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class SGD(torch.optim.SGD):
    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for parameter in group["params"]:
                if parameter.grad is not None:
                    parameter.add_(parameter.grad, alpha=group["lr"])


optim = _torch.Namespace(torch.optim, SGD=SGD)
