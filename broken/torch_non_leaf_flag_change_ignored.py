"""Breaks REQ-6 (and MSG-5). Changing requires_grad of a non-leaf is silently ignored instead of
raising RuntimeError."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_requires_grad_ = torch._C.TensorBase.requires_grad_


def _quiet(self, requires_grad=True):
    if not self.is_leaf:
        return self
    return _requires_grad_(self, requires_grad)


def _set(set_, tensor, value):
    if tensor.is_leaf:
        set_(tensor, value)


torch.Tensor.requires_grad_ = _quiet
_torch.patch_property("requires_grad", setter=_set)
