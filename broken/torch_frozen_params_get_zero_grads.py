"""Breaks MOD-5. backward() gives every parameter of every nn.Linear a grad, zero-filled for frozen
parameters (an engine that allocates grad buffers for all module parameters), instead of leaving
frozen parameters' grad None."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

import weakref

_modules = weakref.WeakSet()


class Linear(torch.nn.Linear):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _modules.add(self)


def _backward(original, tensor, *args):
    result = original(tensor, *args)
    for module in list(_modules):
        for parameter in module.parameters():
            if parameter.grad is None:
                parameter.grad = torch.zeros_like(parameter)
    return result


nn = _torch.Namespace(torch.nn, Linear=Linear)
_torch.patch_backward(_backward)
