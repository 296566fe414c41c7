"""Breaks FWD-2 on the reference engine. unpack_dual returns a plain tuple (primal, tangent): the
right items in the right order, but without the fields .primal and .tangent."""

import autograd_conformance.reference.autograd.forward_ad as forward_ad
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _plain(unpack_dual):
    def unpack_dual_as_tuple(tensor, *, level=None):
        return tuple(unpack_dual(tensor, level=level))
    return unpack_dual_as_tuple


_reference.replace(forward_ad, "unpack_dual", _plain)
