"""Breaks INP-10. Index assignment does not count as an in-place op for the version counter."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_setitem = torch._C.TensorBase.__setitem__


def _counting(self, key, value):
    _setitem(self, key, value)
    self._mutant_setitems = getattr(self, "_mutant_setitems", 0) + 1


torch.Tensor.__setitem__ = _counting
_torch.patch_property("_version", getter=lambda get, t: get(t) - getattr(t, "_mutant_setitems", 0))
