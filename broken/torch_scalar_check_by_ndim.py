"""Breaks JAC-3. The implicit gradient is only created for 0-d outputs (`ndim == 0` instead of
`numel() == 1`), so backward() on a one-element output of shape (1,) or (1, 1) raises."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def _backward(original, tensor, gradient, *args):
    if gradient is None and tensor.dim() != 0:
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    return original(tensor, gradient, *args)


_torch.patch_backward(_backward)
