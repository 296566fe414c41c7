"""Breaks MOD-13. step() applies a decoupled weight decay (lr * 0.01) to every parameter, also to
those whose .grad is None, which torch's optimizers skip."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



def _decaying(base):
    class Optimizer(base):
        @torch.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for parameter in group["params"]:
                    if parameter.grad is None:
                        parameter.mul_(1 - group["lr"] * 0.01)
            return super().step(closure)
    Optimizer.__name__ = base.__name__
    return Optimizer


optim = _torch.Namespace(torch.optim, SGD=_decaying(torch.optim.SGD),
                         Adam=_decaying(torch.optim.Adam))
