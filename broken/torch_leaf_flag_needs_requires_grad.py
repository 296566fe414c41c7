"""Breaks LEAF-1. `is_leaf` is computed as `requires_grad and grad_fn is None`, so user-created
tensors that do not require grad claim not to be leaves (torch: every tensor without a grad_fn is
a leaf, by convention also those that do not require grad)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_torch.patch_property("is_leaf", getter=lambda get, t: bool(t.requires_grad) and t.grad_fn is None)
