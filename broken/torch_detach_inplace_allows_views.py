"""Breaks DET-6. detach_() on a view does not raise: it silently detaches a copy."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_detach_ = torch._C.TensorBase.detach_


def _detach_inplace(self):
    if self._base is not None:
        return self.detach()
    return _detach_(self)


torch.Tensor.detach_ = _detach_inplace
