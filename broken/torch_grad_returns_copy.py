"""Breaks ACC-6. Reading `.grad` returns a copy of the gradient buffer, so `x.grad.zero_()` zeroes the
copy and the next backward accumulates onto the old gradient."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_torch.patch_property("grad", getter=lambda get, t: None if get(t) is None else get(t).clone())
