"""Breaks RETAIN-1, JAC-1, REQ-1 and REQ-10. The engine raises ValueError where torch raises
RuntimeError (second backward, non-scalar backward, integer requires_grad, nothing requires grad)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



def _backward(original, tensor, *args):
    try:
        return original(tensor, *args)
    except RuntimeError as error:
        raise ValueError(str(error)) from None


def tensor(*args, **kwargs):
    try:
        return torch.tensor(*args, **kwargs)
    except RuntimeError as error:
        raise ValueError(str(error)) from None


_requires_grad_ = torch.Tensor.requires_grad_


def _requires_grad_as_value_error(self, requires_grad=True):
    try:
        return _requires_grad_(self, requires_grad)
    except RuntimeError as error:
        raise ValueError(str(error)) from None


torch.Tensor.requires_grad_ = _requires_grad_as_value_error
_torch.patch_backward(_backward)
