"""Breaks MOD-8 on the reference engine. Module.requires_grad_ sets the flags of the module's own
parameters only, not those of its submodules (a Sequential has none of its own)."""

import autograd_conformance.reference.nn as nn
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _own_parameters_only(self, requires_grad=True):
    for p in self._parameters.values():
        if p is not None:
            p.requires_grad_(requires_grad)
    return self


nn.Module.requires_grad_ = _own_parameters_only
