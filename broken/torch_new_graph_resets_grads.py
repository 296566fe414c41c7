"""Breaks ACC-2. A backward from a different output than the previous one starts the leaves' grads
afresh (the engine tags .grad with the graph that produced it), so gradients of separately built
outputs do not add up."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, *args):
    for leaf in _torch.graph_leaves(tensor):
        if getattr(leaf, "_mutant_last_output", None) not in (None, id(tensor)):
            leaf.grad = None
        leaf._mutant_last_output = id(tensor)
    return original(tensor, *args)


_torch.patch_backward(_backward)
