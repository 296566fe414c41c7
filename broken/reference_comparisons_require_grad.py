"""Breaks REQ-4 on the reference engine. A comparison's bool result takes requires_grad from its
operands, as an arithmetic op's result does."""

import autograd_conformance.reference.ops.elementwise as elementwise
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _flag_passed_on(compare):
    def compare_flagged(ufunc, a, b):
        result = compare(ufunc, a, b)
        result._requires_grad = any(getattr(x, "requires_grad", False) for x in (a, b))
        return result
    return compare_flagged


_reference.replace(elementwise, "compare", _flag_passed_on)
