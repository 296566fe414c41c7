"""Breaks INP-19 on the reference engine. x.copy_(src) on a non-leaf also passes the incoming
gradient on to what x was computed from, as if the old values were still part of the result."""

import autograd_conformance.reference.ops.inplace as inplace
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


_backward = inplace.CopyBackwards.backward


def _passes_through(self, grad):
    overwritten, src = _backward(self, grad)
    return (None if overwritten is None else grad, src)


inplace.CopyBackwards.backward = _passes_through
