"""Breaks FWD-3 on the reference engine. Inside a level, unpack_dual of a tensor without a tangent
gives zeros instead of None, as an engine that gives every tensor a tangent would."""

import numpy as np

import autograd_conformance.reference.autograd.forward_ad as forward_ad
from autograd_conformance.reference import dual
from autograd_conformance.reference.tensor import make
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _zeros(unpack_dual):
    def unpack_dual_with_zeros(tensor, *, level=None):
        primal, tangent = unpack_dual(tensor, level=level)
        if tangent is None and dual.state.level is not None:
            tangent = make(np.zeros_like(tensor._array))
        return forward_ad.UnpackedDualTensor(primal, tangent)
    return unpack_dual_with_zeros


_reference.replace(forward_ad, "unpack_dual", _zeros)
