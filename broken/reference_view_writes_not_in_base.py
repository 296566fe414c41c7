"""Breaks VIEW-8 on the reference engine. An in-place op on a view is recorded on the view only: its base keeps its old grad_fn, so
the base's gradients ignore the change (and the view, re-read from the base, loses it too)."""

import autograd_conformance.reference.ops.inplace as inplace
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

def _rebase(a, node):
    a._bump_version()
    if node is not None:
        a._set_grad_fn(node)


inplace._rebase = _rebase
