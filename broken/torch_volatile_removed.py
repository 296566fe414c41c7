"""Breaks RETAIN-12. Tensor.volatile is gone altogether: reading or setting it raises AttributeError
(torch keeps it as a deprecated attribute that warns)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



def _missing(self, *args):
    raise AttributeError("'Tensor' object has no attribute 'volatile'")


torch.Tensor.volatile = property(_missing, _missing)
