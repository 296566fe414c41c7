"""Breaks REQ-1. Asking an integer tensor to require grad is silently ignored instead of raising
RuntimeError."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_INTEGER = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool)


def tensor(data, dtype=None, requires_grad=False, **kwargs):
    result = torch.tensor(data, dtype=dtype, **kwargs)
    if requires_grad and result.dtype not in _INTEGER:
        result.requires_grad_()
    return result


_requires_grad_ = torch.Tensor.requires_grad_


def _quiet_requires_grad_(self, requires_grad=True):
    if self.dtype in _INTEGER:
        return self
    return _requires_grad_(self, requires_grad)


torch.Tensor.requires_grad_ = _quiet_requires_grad_
