"""Breaks GFN-6 (strict). Index assignment records a node named IndexPutBackward0 instead of torch's
CopySlices."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _IndexPut(_torch.GraphView):
    def class_name(self, node):
        name = type(node).__name__
        return "IndexPutBackward0" if name == "CopySlices" else name


_IndexPut().install()
