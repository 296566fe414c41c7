"""Breaks JAC-2. autograd.grad on a non-scalar output without grad_outputs silently uses ones."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



def _grad(outputs, inputs, grad_outputs=None, *args, **kwargs):
    if grad_outputs is None:
        listed = [outputs] if isinstance(outputs, torch.Tensor) else list(outputs)
        grad_outputs = [torch.ones_like(output) for output in listed]
    return torch.autograd.grad(outputs, inputs, grad_outputs, *args, **kwargs)


autograd = _torch.Namespace(torch.autograd, grad=_grad)
