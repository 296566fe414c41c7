"""Breaks DET-7. detach_() cuts the graph already recorded through the tensor (as an engine whose
edges point at tensor objects and read their grad_fn at backward time): no gradient flows back
through it any more."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_detach_ = torch._C.TensorBase.detach_


def _detach_inplace(self):
    node = torch._C.TensorBase.grad_fn.__get__(self)
    if node is not None:
        node.register_prehook(lambda grad_outputs: tuple(
            None if g is None else torch.zeros_like(g) for g in grad_outputs))
    return _detach_(self)


torch.Tensor.detach_ = _detach_inplace
