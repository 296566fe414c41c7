"""Breaks GFN-1 (strict). Backward nodes are named without torch's overload number (MulBackward
instead of MulBackward0)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _Unnumbered(_torch.GraphView):
    def class_name(self, node):
        return type(node).__name__.rstrip("0123456789")


_Unnumbered().install()
