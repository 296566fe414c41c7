"""Breaks RETAIN-4. `retain_graph=True` is ignored: every backward frees the graph, so the next
backward through saved tensors raises."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
    return original(tensor, gradient, False, create_graph, inputs)


_torch.patch_backward(_backward)
