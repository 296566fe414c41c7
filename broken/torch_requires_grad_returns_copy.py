"""Breaks REQ-5. requires_grad_() returns a new tensor that requires grad (functional style) and leaves
the tensor itself unchanged; assigning .requires_grad still works."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_requires_grad_ = torch._C.TensorBase.requires_grad_


def _copying(self, requires_grad=True):
    if self.is_leaf and bool(self.requires_grad) != bool(requires_grad):
        return _requires_grad_(torch._C.TensorBase.detach(self).clone(), requires_grad)
    return _requires_grad_(self, requires_grad)


torch.Tensor.requires_grad_ = _copying
