"""Breaks MODE-6. inference_mode() is an alias of no_grad(): nothing is recorded, but results are not
inference tensors (is_inference() is False)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

inference_mode = torch.no_grad
