"""Breaks RETAIN-2. autograd.grad always keeps the graph (retain_graph defaults to True), so a second
call through saved tensors succeeds instead of raising."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



def _grad(outputs, inputs, grad_outputs=None, retain_graph=None, *args, **kwargs):
    return torch.autograd.grad(outputs, inputs, grad_outputs, True, *args, **kwargs)


autograd = _torch.Namespace(torch.autograd, grad=_grad)
