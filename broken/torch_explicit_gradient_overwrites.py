"""Breaks JAC-7. backward(gradient) with an explicit gradient stores its vector-Jacobian product in
.grad instead of adding it to what earlier passes left there."""

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, gradient, *args):
    if gradient is not None:
        for leaf in _torch.graph_leaves(tensor):
            leaf.grad = None
    return original(tensor, gradient, *args)


_torch.patch_backward(_backward)
