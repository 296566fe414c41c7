"""Breaks LEAF-2. Every op result reports is_leaf False (the engine marks tensors made by ops), even
when it does not require grad and has no grad_fn."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _MarkResults(_torch.ResultMode):
    def on_result(self, func, args, result):
        if isinstance(result, torch.Tensor) and _torch.tensors_in(args) and result is not args[0]:
            try:
                result._mutant_op_result = True
            except (AttributeError, RuntimeError):
                pass
        return result


_MarkResults().install()
_torch.patch_property("is_leaf", getter=lambda get, t: get(t) and
                      not getattr(t, "_mutant_op_result", False))
