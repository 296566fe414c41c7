"""Breaks MOD-4. nn.MSELoss computes on its input's data (detached), so its output does not require
grad even when the input does."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class MSELoss(torch.nn.MSELoss):
    def forward(self, input, target):
        return super().forward(input.detach(), target)


nn = _torch.Namespace(torch.nn, MSELoss=MSELoss)
