"""Breaks LEAF-5. Gradients are accumulated in float32 whatever the leaf's dtype (the grad buffer is
allocated with the default dtype), so a float64 leaf gets a float32 `.grad`."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, *args):
    leaves = _torch.graph_leaves(tensor)
    result = original(tensor, *args)
    for leaf in leaves:
        if leaf.grad is not None and leaf.grad.dtype == torch.float64:
            leaf.grad.data = leaf.grad.data.to(torch.float32)
    return result


_torch.patch_backward(_backward)
