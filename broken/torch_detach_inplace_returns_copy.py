"""Breaks DET-5. detach_() returns a detached tensor but leaves the tensor itself unchanged (still a
non-leaf with its grad_fn)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

torch.Tensor.detach_ = lambda self: self.detach()
