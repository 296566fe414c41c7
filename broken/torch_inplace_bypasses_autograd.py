"""Breaks INP-11 and INP-5. In-place ops on a non-leaf write through `.data`: they are not recorded
and do not bump the version counter, so gradients are those of the unmodified values and a
modified saved tensor goes unnoticed."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_METHODS = ("add_", "mul_", "sub_", "div_", "zero_", "copy_")


def _through_data(method):
    def apply(self, *args, **kwargs):
        if not self.is_leaf:
            method(self.data, *[a.detach() if isinstance(a, torch.Tensor) else a for a in args],
                   **kwargs)
            return self
        return method(self, *args, **kwargs)
    return apply


for _name in _METHODS:
    setattr(torch.Tensor, _name, _through_data(getattr(torch.Tensor, _name)))
