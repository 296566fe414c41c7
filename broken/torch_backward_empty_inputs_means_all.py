"""Breaks MISC-5. backward(inputs=[]) is taken as no restriction: it accumulates into every leaf
instead of raising."""

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
    if inputs is not None and len(inputs) == 0:
        inputs = None
    return original(tensor, gradient, retain_graph, create_graph, inputs)


_torch.patch_backward(_backward)
