"""Breaks GRAD-8. autograd.grad with an empty list of inputs returns an empty tuple instead of
raising RuntimeError."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



def _grad(outputs, inputs, *args, **kwargs):
    if not isinstance(inputs, torch.Tensor) and len(list(inputs)) == 0:
        return ()
    return torch.autograd.grad(outputs, inputs, *args, **kwargs)


autograd = _torch.Namespace(torch.autograd, grad=_grad)
