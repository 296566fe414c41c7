"""Breaks BC-2. A 0-dim tensor's .grad is stored as a one-element vector of shape (1,)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_torch.patch_property("grad", getter=lambda get, t: None if get(t) is None else
                      (get(t).reshape(1) if get(t).dim() == 0 else get(t)))
