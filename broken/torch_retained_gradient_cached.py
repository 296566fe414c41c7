"""Breaks JAC-6. A retained graph caches the gradient of its first backward: later
backward(e_i, retain_graph=True) calls reuse the first gradient, so every Jacobian row equals row 0."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, gradient, retain_graph, *args):
    if retain_graph:
        cached = getattr(tensor, "_mutant_cached_gradient", None)
        if cached is not None:
            gradient = cached
        elif gradient is not None:
            tensor._mutant_cached_gradient = gradient.clone()
    return original(tensor, gradient, retain_graph, *args)


_torch.patch_backward(_backward)
