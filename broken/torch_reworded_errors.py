"""Breaks MSG-1, MSG-2, MSG-3 and MSG-4 (strict). Every autograd error is a RuntimeError, as the core
level requires, but with the engine's own wording instead of torch's."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_WORDING = [
    ("Trying to backward through the graph a second time", "graph already freed"),
    ("grad can be implicitly created only for scalar outputs", "output must be a scalar"),
    ("does not require grad and does not have a grad_fn", "nothing to differentiate"),
    ("Only Tensors of floating point and complex dtype can require gradients",
     "integer tensors are not differentiable"),
    ("Mismatch in shape", "gradient has the wrong shape"),
]


def _reworded(error):
    for torch_text, own_text in _WORDING:
        if torch_text in str(error):
            return RuntimeError(own_text)
    return error


def _backward(original, tensor, *args):
    try:
        return original(tensor, *args)
    except RuntimeError as error:
        raise _reworded(error) from None


def tensor(*args, **kwargs):
    try:
        return torch.tensor(*args, **kwargs)
    except RuntimeError as error:
        raise _reworded(error) from None


_torch.patch_backward(_backward)
