"""Breaks INP-12. Assigning a constant into a non-leaf writes through `.data` without recording, so
the overwritten elements still pass gradient to the inputs."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_setitem = torch._C.TensorBase.__setitem__


def _constant_through_data(self, key, value):
    if not self.is_leaf and not (isinstance(value, torch.Tensor) and value.requires_grad):
        return _setitem(self.data, key, value)
    return _setitem(self, key, value)


torch.Tensor.__setitem__ = _constant_through_data
