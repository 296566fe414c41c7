"""Breaks ACC-9. `optimizer.zero_grad()` defaults to set_to_none=False (torch before 2.0): the
parameters' grads become zero tensors instead of None."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class SGD(torch.optim.SGD):
    def zero_grad(self, set_to_none: bool = False):
        super().zero_grad(set_to_none=set_to_none)


class Adam(torch.optim.Adam):
    def zero_grad(self, set_to_none: bool = False):
        super().zero_grad(set_to_none=set_to_none)


optim = _torch.Namespace(torch.optim, SGD=SGD, Adam=Adam)
