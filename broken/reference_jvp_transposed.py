"""Breaks FUNC-2 on the reference engine. jvp confuses forward and reverse mode: it returns the
vjp with v, v^T J, instead of J v (the same only where J is symmetric, and a shape error where
the input and output shapes differ)."""

import autograd_conformance.reference.autograd.functional as functional
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _transposed(jvp):
    def jvp_by_vjp(func, inputs, v=None, create_graph=False, strict=False):
        return functional.vjp(func, inputs, v, create_graph, strict)
    return jvp_by_vjp


_reference.replace(functional, "jvp", _transposed)
