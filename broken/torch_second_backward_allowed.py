"""Breaks RETAIN-1. backward() frees nothing: the graph is always retained, so a second backward
through saved tensors succeeds instead of raising."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
    return original(tensor, gradient, True, create_graph, inputs)


_torch.patch_backward(_backward)
