"""Breaks CPLX-6 on the reference engine. A complex gradient that reaches a real input is cast
by keeping its imaginary part instead of its real part (the wrong half of the (re, im) pair)."""

import numpy as np

import autograd_conformance.reference.ops.common as common
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _imaginary(cast):
    def cast_imaginary(grad, dtype):
        if np.iscomplexobj(grad) and dtype.kind != "c":
            grad = np.imag(grad)
        return cast(grad, dtype)
    return cast_imaginary


_reference.replace(common, "cast", _imaginary)
