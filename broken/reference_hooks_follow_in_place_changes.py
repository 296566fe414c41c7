"""Breaks HOOK-11 on the reference engine. An in-place op moves the tensor hooks registered so far
to the tensor's new grad_fn: hooks registered before the change get the gradient w.r.t. the new
value, as hooks kept on the tensor rather than on its node would."""

from autograd_conformance.reference.hooks import HookDict
from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_set_grad_fn = Tensor._set_grad_fn


def _moving_the_hooks(self, node):
    old = self.grad_fn
    _set_grad_fn(self, node)
    if old is not None and old._pre_hooks:
        moved = HookDict(old._pre_hooks)
        moved.update(node._pre_hooks or {})
        node._pre_hooks, old._pre_hooks = moved, None


Tensor._set_grad_fn = _moving_the_hooks
