"""Breaks VIEW-16 on the reference engine. detach_() counts as a change of the base's storage, and a view that follows its base takes
its requires_grad too: after y.detach_() the views of y are out of the graph."""

import autograd_conformance.reference.ops.views as views
from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_detach_ = Tensor.detach_
_follow = views.View.follow_base


def _detach_and_bump(self):
    _detach_(self)
    self._bump_version()
    return self


def _follow_requires_grad(self, view):
    _follow(self, view)
    if not view._base.requires_grad:
        view._grad_fn, view._requires_grad = None, False


Tensor.detach_ = _detach_and_bump
views.View.follow_base = _follow_requires_grad
