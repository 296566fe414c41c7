"""Breaks FWD-1 on the reference engine. make_dual outside any dual_level does not refuse: it
returns the view it would make inside one, without a tangent, so that a forgotten level goes
unnoticed (every tangent is then silently None)."""

import autograd_conformance.reference.autograd.forward_ad as forward_ad
from autograd_conformance.reference import dual
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _lenient(make_dual):
    def make_dual_anywhere(tensor, tangent, *, level=None):
        if dual.state.level is None:
            return tensor.reshape(tensor.shape)
        return make_dual(tensor, tangent, level=level)
    return make_dual_anywhere


_reference.replace(forward_ad, "make_dual", _lenient)
