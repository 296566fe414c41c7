"""Breaks INP-8 on the reference engine. The version counter moves only for in-place ops in grad
mode (where they are recorded): a saved leaf changed under no_grad goes unnoticed, and backward
computes with its new values."""

import autograd_conformance.reference.grad_mode as grad_mode
from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_bump_version = Tensor._bump_version


def _in_grad_mode_only(self):
    if grad_mode.state.enabled:
        _bump_version(self)


Tensor._bump_version = _in_grad_mode_only
