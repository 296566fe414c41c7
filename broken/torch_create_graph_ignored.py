"""Breaks HO-1. autograd.grad accepts create_graph=True but does not record the backward pass (an
engine without double backward), so the gradients cannot be differentiated again."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



def _grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, **kwargs):
    return torch.autograd.grad(outputs, inputs, grad_outputs,
                               retain_graph=retain_graph or create_graph, create_graph=False,
                               **kwargs)


autograd = _torch.Namespace(torch.autograd, grad=_grad)
