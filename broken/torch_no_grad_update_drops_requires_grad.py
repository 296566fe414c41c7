"""Breaks MODE-3. An in-place op under no_grad on a leaf that requires grad rebinds it to a fresh,
untracked buffer: the values update but the leaf no longer requires grad (the SGD idiom then stops
training)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_add_, _mul_ = torch.Tensor.add_, torch.Tensor.mul_


def _untracking(method):
    def apply(self, *args, **kwargs):
        result = method(self, *args, **kwargs)
        if not torch.is_grad_enabled() and self.is_leaf and self.requires_grad:
            self.requires_grad_(False)
        return result
    return apply


torch.Tensor.add_, torch.Tensor.mul_ = _untracking(_add_), _untracking(_mul_)
