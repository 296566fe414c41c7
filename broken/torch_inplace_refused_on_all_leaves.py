"""Breaks INP-4. In-place ops are refused on every leaf (the engine checks is_leaf, not is_leaf and
requires_grad and grad mode)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_METHODS = ("add_", "mul_")


def _strict(method):
    def apply(self, *args, **kwargs):
        if self.is_leaf:
            raise RuntimeError("a leaf Variable is being used in an in-place operation.")
        return method(self, *args, **kwargs)
    return apply


for _name in _METHODS:
    setattr(torch.Tensor, _name, _strict(getattr(torch.Tensor, _name)))
