"""Breaks FWD-4 on the reference engine. tanh's forward-mode rule takes its derivative from the
input instead of the output: da * (1 - a^2) where it is da * (1 - tanh(a)^2). Its backward is
right, so only tangents are wrong."""

import autograd_conformance.reference.ops.elementwise as elementwise
from autograd_conformance.reference import dual
from autograd_conformance.reference.tensor import make
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _from_input(tanh):
    def tanh_with_input_jvp(a):
        out = tanh(a)
        tangent = dual.tangent(a)
        if tangent is not None:
            dual.set_tangent(out, make(tangent._array * (1 - a._array * a._array)))
        return out
    return tanh_with_input_jvp


_reference.replace(elementwise, "tanh", _from_input)
