"""Breaks MISC-14. backward(create_graph=True) gives no warning about the reference cycle between
a parameter and its gradient."""

import warnings

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Using backward\\(\\) with create_graph=True")
        return original(tensor, gradient, retain_graph, create_graph, inputs)


_torch.patch_backward(_backward)
