"""Breaks INP-14. Index assignment copies the assigned value's data without recording the op, so
`n[0, 0] = m[0, 0] ** 2` leaves n outside the graph and backward never reaches m."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_setitem = torch._C.TensorBase.__setitem__


def _setitem_detached(self, key, value):
    if isinstance(value, torch.Tensor):
        value = value.detach()
    return _setitem(self, key, value)


torch.Tensor.__setitem__ = _setitem_detached
