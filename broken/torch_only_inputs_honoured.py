"""Breaks GRAD-3. autograd.grad still honours the deprecated only_inputs: with only_inputs=False it
silently also accumulates the gradients of every leaf into .grad, as backward would."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_original_grad = torch.autograd.grad


def _grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
          only_inputs=True, **kwargs):
    if only_inputs:
        return _original_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, **kwargs)
    results = _original_grad(outputs, inputs, grad_outputs, True, create_graph, only_inputs=False,
                             **kwargs)
    torch.autograd.backward(outputs, grad_outputs, retain_graph, create_graph)
    return results


autograd = _torch.Namespace(torch.autograd, grad=_grad)
