"""Breaks INP-16. An in-place op on a tensor that does not require grad is never recorded, even when
its operand requires grad: a.add_(x) leaves a a plain leaf and backward never reaches x."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_METHODS = ("add_", "mul_", "sub_", "div_", "copy_")


def _unrecorded(method):
    def apply(self, *args, **kwargs):
        if not self.requires_grad:
            args = [a.detach() if isinstance(a, torch.Tensor) else a for a in args]
        return method(self, *args, **kwargs)
    return apply


for _name in _METHODS:
    setattr(torch.Tensor, _name, _unrecorded(getattr(torch.Tensor, _name)))
