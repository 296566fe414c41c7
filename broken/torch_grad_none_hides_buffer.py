"""Breaks ACC-8. `x.grad = None` only hides the gradient: reading it gives None, but the accumulation
buffer is kept, so the next backward adds onto the old gradient."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _set(set_, tensor, value):
    if value is None and _torch.base_property("grad").__get__(tensor) is not None:
        tensor._mutant_hidden = True
        return
    tensor._mutant_hidden = False
    set_(tensor, value)


def _get(get, tensor):
    return None if getattr(tensor, "_mutant_hidden", False) else get(tensor)


def _backward(original, tensor, *args):
    leaves = _torch.graph_leaves(tensor)
    result = original(tensor, *args)
    for leaf in leaves:
        leaf._mutant_hidden = False
    return result


_torch.patch_property("grad", getter=_get, setter=_set)
_torch.patch_backward(_backward)
