"""Breaks MISC-4. backward(inputs=[...]) ignores `inputs` and accumulates into every leaf."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
    return original(tensor, gradient, retain_graph, create_graph, None)


_torch.patch_backward(_backward)
