"""Breaks REQ-8. A binary operator's result requires grad only if its *first* operand does (the
engine checks `self.requires_grad` only), so `c * x` with only x requiring grad is cut from the graph."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_OPERATORS = {"add", "sub", "mul", "div", "matmul", "__add__", "__sub__", "__mul__",
              "__truediv__", "__matmul__"}


class _FirstOperandOnly(_torch.ResultMode):
    def on_result(self, func, args, result):
        if (getattr(func, "__name__", None) in _OPERATORS and isinstance(result, torch.Tensor) and len(args) == 2
                and isinstance(args[0], torch.Tensor) and not args[0].requires_grad
                and result.requires_grad):
            return result.detach()
        return result


_FirstOperandOnly().install()
