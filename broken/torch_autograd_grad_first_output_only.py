"""Breaks GRAD-9. autograd.grad differentiates only the first of several outputs (with its
grad_output), dropping the others' vector-Jacobian products."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _grad(outputs, inputs, grad_outputs=None, *args, **kwargs):
    if not isinstance(outputs, torch.Tensor):
        outputs = outputs[0]
        if grad_outputs is not None and not isinstance(grad_outputs, torch.Tensor):
            grad_outputs = grad_outputs[0]
    return torch.autograd.grad(outputs, inputs, grad_outputs, *args, **kwargs)


autograd = _torch.Namespace(torch.autograd, grad=_grad)
