"""Breaks DET-1. detach() returns a copy instead of a view sharing storage, so in-place changes to
the detached tensor are not seen by the original."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_detach = torch._C.TensorBase.detach
torch.Tensor.detach = lambda self: _detach(self).clone()
