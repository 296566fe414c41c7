"""Breaks REQ-12. autograd.grad with respect to a tensor that does not require grad returns zeros
instead of raising RuntimeError."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



def _grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
          allow_unused=None, **kwargs):
    single = isinstance(inputs, torch.Tensor)
    listed = [inputs] if single else list(inputs)
    live = [tensor for tensor in listed if tensor.requires_grad]
    grads = iter(torch.autograd.grad(outputs, live, grad_outputs, retain_graph, create_graph,
                                     allow_unused=allow_unused) if live else ())
    return tuple(next(grads) if tensor.requires_grad else torch.zeros_like(tensor)
                 for tensor in listed)


autograd = _torch.Namespace(torch.autograd, grad=_grad)
