"""Breaks MODE-4. Leaving a no_grad block switches grad mode on instead of restoring the enclosing
mode (no_grad implemented as set_grad_enabled(False) ... set_grad_enabled(True)), so a no_grad nested
in no_grad or in set_grad_enabled(False) turns recording back on too early."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class no_grad(torch.no_grad):
    def __exit__(self, *exc):
        torch._C._set_grad_enabled(True)
        return False
