"""Breaks ACC-10. `module.zero_grad()` defaults to set_to_none=False (torch before 2.0): every
parameter's grad becomes a zero tensor instead of None."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_zero_grad = torch.nn.Module.zero_grad
torch.nn.Module.zero_grad = lambda self, set_to_none=False: _zero_grad(self, set_to_none)
