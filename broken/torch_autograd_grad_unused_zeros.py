"""Breaks GRAD-2. autograd.grad gives zeros for inputs the outputs do not depend on (as if
allow_unused and materialize_grads were always on) instead of raising or returning None."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



def _grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
          allow_unused=None, **kwargs):
    return torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                               allow_unused=True, materialize_grads=True)


autograd = _torch.Namespace(torch.autograd, grad=_grad)
