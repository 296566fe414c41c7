"""Breaks MOD-12 on the reference engine. Parameters are exempt from the in-place check on leaves
that require grad (so that an optimizer could update them without no_grad): p.add_(1.0) in grad
mode changes the parameter instead of raising."""

import autograd_conformance.reference.nn as nn
import autograd_conformance.reference.ops.inplace as inplace
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _exempting_parameters(check):
    def check_inplace(a, leaf_message, *operands):
        if not isinstance(a, nn.Parameter):
            check(a, leaf_message, *operands)
    return check_inplace


_reference.replace(inplace, "_check_inplace", _exempting_parameters)
