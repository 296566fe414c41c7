"""Breaks HOOK-3. retain_grad() is itself a hook, so it stores the gradient as it is at its place in
the hook chain: hooks registered after it do not change the retained .grad (torch before 2.0)."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_grad_property = _torch.base_property("grad")


def _retain_grad(self):
    if self.is_leaf:
        return None

    def store(grad):
        previous = getattr(self, "_mutant_retained", None)
        self._mutant_retained = grad.clone() if previous is None else previous + grad
        return None

    torch.Tensor.register_hook(self, store)
    self._mutant_retained = None
    return None


def _get(get, tensor):
    if hasattr(tensor, "_mutant_retained"):
        return tensor._mutant_retained
    return get(tensor)


torch.Tensor.retain_grad = _retain_grad
_torch.patch_property("grad", getter=_get)
