"""Breaks RETAIN-10. backward() still accepts retain_variables= (the removed old name of retain_graph)
instead of raising TypeError."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_backward = torch.Tensor.backward


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None,
             retain_variables=None):
    if retain_variables is not None and retain_graph is None:
        retain_graph = retain_variables
    return _backward(self, gradient, retain_graph, create_graph, inputs)


torch.Tensor.backward = backward
