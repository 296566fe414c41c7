"""Breaks LEAF-8. `retain_grad()` is accepted but does nothing: the non-leaf's `.grad` stays None."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

torch.Tensor.retain_grad = lambda self: None
