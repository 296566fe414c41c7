"""Breaks JAC-9 on the reference engine. jacobian of tuple inputs and tuple outputs nests its
blocks input first, result[j][i] = d output_i / d input_j, instead of output first."""

import autograd_conformance.reference.autograd.functional as functional
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _input_major(jacobian):
    def jacobian_by_input(func, inputs, *args, **kwargs):
        result = jacobian(func, inputs, *args, **kwargs)
        if isinstance(result, tuple) and result and isinstance(result[0], tuple):
            return tuple(zip(*result))
        return result
    return jacobian_by_input


_reference.replace(functional, "jacobian", _input_major)
