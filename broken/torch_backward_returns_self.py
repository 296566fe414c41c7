"""Breaks MISC-6. Tensor.backward() returns the tensor it was called on (for chaining), not
None."""

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
    original(tensor, gradient, retain_graph, create_graph, inputs)
    return tensor


_torch.patch_backward(_backward)
