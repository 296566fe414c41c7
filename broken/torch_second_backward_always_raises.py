"""Breaks RETAIN-3 (strict). After a backward without retain_graph, the whole graph is marked freed
and any second backward from the same output raises, even when no node on the path saved tensors."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, gradient, retain_graph, create_graph, inputs):
    if getattr(tensor, "_mutant_freed", False):
        raise RuntimeError("Trying to backward through the graph a second time (or directly access "
                           "saved tensors after they have already been freed).")
    result = original(tensor, gradient, retain_graph, create_graph, inputs)
    if not (retain_graph or create_graph):
        tensor._mutant_freed = True
    return result


_torch.patch_backward(_backward)
