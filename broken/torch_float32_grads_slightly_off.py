"""Breaks LEAF-5, almost: every float32 leaf's .grad comes out 0.1% too large (a relative error of
1e-3, as a fused or approximated kernel might give), while float64 gradients stay right."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, *args):
    leaves = _torch.graph_leaves(tensor)
    before = {id(leaf): None if leaf.grad is None else leaf.grad.clone() for leaf in leaves}
    result = original(tensor, *args)
    with torch.no_grad():
        for leaf in leaves:
            if leaf.grad is not None and leaf.grad.dtype == torch.float32:
                old = before[id(leaf)]
                added = leaf.grad - (0 if old is None else old)
                leaf.grad.add_(added * 1e-3)
    return result


_torch.patch_backward(_backward)
