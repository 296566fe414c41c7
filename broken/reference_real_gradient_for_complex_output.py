"""Breaks CPLX-7 on the reference engine. A real gradient for a complex output is accepted and
cast to the complex dtype (imaginary part 0); only a complex gradient for a real output raises."""

import autograd_conformance.reference.autograd.gradients as gradients
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _one_way(check):
    def check_complex_gradient_only(i, g, out):
        if g._array.dtype.kind == "c":
            check(i, g, out)
    return check_complex_gradient_only


_reference.replace(gradients, "_check_complex_iff", _one_way)
