"""Breaks MODE-2. Factories compute `requires_grad and is_grad_enabled()`, so tensors created with
requires_grad=True inside no_grad do not require grad."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



def _obeying(factory):
    def create(*args, requires_grad=False, **kwargs):
        return factory(*args, requires_grad=requires_grad and torch.is_grad_enabled(), **kwargs)
    return create


tensor, zeros, ones = _obeying(torch.tensor), _obeying(torch.zeros), _obeying(torch.ones)
