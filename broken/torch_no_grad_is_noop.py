"""Breaks MODE-1 and MODE-9. no_grad() is accepted but records everything (a stub context manager in
an engine without grad mode), so values computed under it are not constants."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

import contextlib


class no_grad(contextlib.ContextDecorator):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
