"""Breaks VAL-2. exp, log, tanh, sigmoid and relu compute in float64 and return float64 (NumPy's
default), so float32 programs do not stay in float32."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



def _promoting(function):
    def apply(x):
        return function(x.double()) if x.dtype == torch.float32 else function(x)
    return apply


exp, log, tanh, sigmoid, relu = (_promoting(torch.exp), _promoting(torch.log),
                                 _promoting(torch.tanh), _promoting(torch.sigmoid),
                                 _promoting(torch.relu))
