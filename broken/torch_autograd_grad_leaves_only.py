"""Breaks GRAD-4. autograd.grad refuses non-leaf inputs (the engine only accumulates into leaves)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



def _grad(outputs, inputs, *args, **kwargs):
    listed = [inputs] if isinstance(inputs, torch.Tensor) else list(inputs)
    if any(not tensor.is_leaf for tensor in listed):
        raise RuntimeError("autograd.grad: inputs must be leaf tensors")
    return torch.autograd.grad(outputs, inputs, *args, **kwargs)


autograd = _torch.Namespace(torch.autograd, grad=_grad)
