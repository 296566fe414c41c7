"""Breaks MOD-1 (and MOD-3). nn.Linear creates its weight and bias with requires_grad=False, as an
engine would whose Parameter defaults to requires_grad=False."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class Linear(torch.nn.Linear):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for parameter in self.parameters():
            parameter.requires_grad_(False)


nn = _torch.Namespace(torch.nn, Linear=Linear)
