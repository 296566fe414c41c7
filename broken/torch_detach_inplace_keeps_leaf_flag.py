"""Breaks DET-8. detach_() on a leaf is a no-op: the leaf keeps requires_grad=True."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_detach_ = torch._C.TensorBase.detach_
torch.Tensor.detach_ = lambda self: self if self.grad_fn is None else _detach_(self)
