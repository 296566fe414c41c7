"""Breaks VIEW-12 on the reference engine. An in-place op on a view with a requiring operand is recorded in the base only when the
base already requires grad: a plain base stays a leaf, and the operand's gradient is lost."""

import autograd_conformance.reference.ops.inplace as inplace
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_rebase = inplace._rebase


def _rebase_requiring_bases(a, node):
    if node is not None and a._view is not None and not a._base.requires_grad:
        a._bump_version()
        a._view.version = a._counter.value
        a._set_grad_fn(node)
        return
    _rebase(a, node)


inplace._rebase = _rebase_requiring_bases
