"""Breaks MODE-5. set_grad_enabled(flag) only takes effect as a context manager (it changes the mode
in __enter__), so calling it as a plain function does nothing."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class set_grad_enabled:
    def __init__(self, mode):
        self.mode = bool(mode)

    def __enter__(self):
        self.previous = torch.is_grad_enabled()
        torch._C._set_grad_enabled(self.mode)

    def __exit__(self, *exc):
        torch._C._set_grad_enabled(self.previous)
        return False
