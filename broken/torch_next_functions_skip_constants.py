"""Breaks GFN-3. grad_fn.next_functions lists only the inputs that require grad (no None entries for
constants), as engines that store only differentiable parents do."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _SkipConstants(_torch.GraphView):
    def next_functions(self, node):
        return tuple(pair for pair in super().next_functions(node) if pair[0] is not None)


_SkipConstants().install()
