"""Breaks HO-2. autograd.grad always records the backward pass (create_graph is always on), so the
returned gradients require grad and have a grad_fn."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



def _grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, **kwargs):
    return torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph, True, **kwargs)


autograd = _torch.Namespace(torch.autograd, grad=_grad)
