"""Breaks FWD-6 on the reference engine. make_dual checks that the tangent has as many elements
as the primal, not the same shape, and reshapes it: a tangent of shape (1, n) for a primal of
shape (n,) is accepted."""

import autograd_conformance.reference.autograd.forward_ad as forward_ad
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _reshaping(make_dual):
    def make_dual_reshaped(tensor, tangent, *, level=None):
        if tangent.numel() == tensor.numel():
            tangent = tangent.reshape(tensor.shape)
        return make_dual(tensor, tangent, level=level)
    return make_dual_reshaped


_reference.replace(forward_ad, "make_dual", _reshaping)
