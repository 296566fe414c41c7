"""Breaks RETAIN-13. autograd.Variable(t, requires_grad=..., volatile=...) silently ignores volatile
(no warning, no ValueError with requires_grad=True)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



def _variable(data, requires_grad=False, volatile=False):
    return data.detach().requires_grad_(requires_grad)


autograd = _torch.Namespace(torch.autograd, Variable=_variable)
