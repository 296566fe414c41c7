"""Breaks VIEW-10 on the reference engine. A view follows an in-place op made through itself, but not one made through its base or
another view: after y.mul_(c) a view of y still has its old values in the graph."""

import autograd_conformance.reference.ops.inplace as inplace
import autograd_conformance.reference.ops.views as views
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_follow = views.View.follow_base
_rebase = inplace._rebase


def _rebase_and_follow(a, node):
    _rebase(a, node)
    if node is not None and a._view is not None:
        _follow(a._view, a)


def _follow_nothing(self, view):
    self.version = view._counter.value


views.View.follow_base = _follow_nothing
inplace._rebase = _rebase_and_follow
