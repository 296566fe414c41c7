"""Breaks DET-3. detach() returns `.data`: same storage, no graph, but its own version counter, so
modifying a saved tensor through the alias goes unnoticed and backward computes with wrong values."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

torch.Tensor.detach = lambda self: self.data
