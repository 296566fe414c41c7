"""Breaks VIEW-17 on the reference engine. An in-place op through a view under no_grad does not move the version counter (the write
is not recorded, so it is not counted): a node that saved the base does not notice it."""

from autograd_conformance.reference import grad_mode
from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_bump_version = Tensor._bump_version


def _bump_recorded_view_writes(self):
    if self._view is None or grad_mode.state.enabled:
        _bump_version(self)


Tensor._bump_version = _bump_recorded_view_writes
