"""Breaks REQ-7. detach() keeps a back-pointer to the tensor it came from, and requires_grad_() on the
detached tensor re-attaches it: gradients reaching the new leaf also flow on into the old graph."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities


def to_numpy(tensor):
    return torch._C.TensorBase.detach(tensor).cpu().numpy()

_detach = torch._C.TensorBase.detach
_requires_grad_ = torch._C.TensorBase.requires_grad_


def _remembering_detach(self):
    alias = _detach(self)
    if self.requires_grad:
        alias._mutant_source = self
    return alias


def _reattaching(self, requires_grad=True):
    result = _requires_grad_(self, requires_grad)
    source = getattr(self, "_mutant_source", None)
    if requires_grad and source is not None:
        self.register_hook(lambda grad: source.backward(grad, retain_graph=True))
    return result


torch.Tensor.detach = _remembering_detach
torch.Tensor.requires_grad_ = _reattaching
