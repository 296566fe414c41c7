"""Breaks MODE-1. Under no_grad nothing is recorded, but op results still copy requires_grad from
their inputs (the flag is propagated, only the graph edge is dropped), so no_grad results claim to
require grad and backward on them does not raise."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _FlagWithoutGraph(_torch.ResultMode):
    def on_result(self, func, args, result):
        if (not torch.is_grad_enabled() and isinstance(result, torch.Tensor)
                and result.is_floating_point() and not result.requires_grad
                and any(t.requires_grad for t in _torch.tensors_in(args))):
            result.requires_grad_()
        return result


_FlagWithoutGraph().install()
