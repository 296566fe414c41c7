"""Breaks DET-2 (and DET-1). detach() returns an alias that stays in the graph (recorded as an identity
op), so gradients flow through the "detached" branch."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def to_numpy(tensor):
    return torch._C.TensorBase.detach(tensor).cpu().numpy()

torch.Tensor.detach = lambda self: self.view_as(self)
