"""Breaks OPT-2. optimizer.step() zeroes the gradients after updating (an implicit zero_grad), so
gradients of several backward passes between steps do not accumulate into one update."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class SGD(torch.optim.SGD):
    def step(self, closure=None):
        result = super().step(closure)
        self.zero_grad()
        return result


class Adam(torch.optim.Adam):
    def step(self, closure=None):
        result = super().step(closure)
        self.zero_grad()
        return result


optim = _torch.Namespace(torch.optim, SGD=SGD, Adam=Adam)
