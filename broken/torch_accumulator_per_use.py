"""Breaks GFN-4. Each use of a leaf gets its own AccumulateGrad node, so a leaf used twice is reached
through two accumulators instead of one."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _AccumulatorPerUse(_torch.GraphView):
    def proxy_key(self, node, parent=None, index=None):
        if type(node).__name__ == "AccumulateGrad" and parent is not None:
            return (id(node), id(parent), index)
        return id(node)


_AccumulatorPerUse().install()
