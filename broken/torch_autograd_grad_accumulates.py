"""Breaks GRAD-1. autograd.grad is implemented with backward(inputs=...): it returns the right
gradients but also accumulates them into the inputs' .grad."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



def _grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
          allow_unused=None, **kwargs):
    single = isinstance(inputs, torch.Tensor)
    inputs = [inputs] if single else list(inputs)
    for tensor in inputs:
        if not tensor.is_leaf:
            tensor.retain_grad()
    torch.autograd.backward(outputs, grad_outputs, retain_graph, create_graph, inputs=inputs)
    return tuple(tensor.grad for tensor in inputs)


autograd = _torch.Namespace(torch.autograd, grad=_grad)
