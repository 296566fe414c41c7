"""Breaks LEAF-6. Every intermediate result keeps its gradient after backward (as if retain_grad()
were called on every op's result), the memory leak torch avoids by freeing non-leaf grads."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


class _RetainAll(_torch.ResultMode):
    def on_result(self, func, args, result):
        if isinstance(result, torch.Tensor) and result.requires_grad and not result.is_leaf:
            result.retain_grad()
        return result


_RetainAll().install()
