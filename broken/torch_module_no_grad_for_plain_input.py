"""Breaks MOD-3. nn.Linear runs its forward under no_grad when its input does not require grad (an
"inference shortcut"), so net(x) does not require grad although the module has parameters."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class Linear(torch.nn.Linear):
    def forward(self, input):
        if not input.requires_grad:
            with torch.no_grad():
                return super().forward(input)
        return super().forward(input)


nn = _torch.Namespace(torch.nn, Linear=Linear)
