"""Breaks FUNC-5 on the reference engine. hvp and vhp of several inputs differentiate the function
with respect to each input on its own, the others held fixed: each result is H_jj v_j, without the
mixed second derivatives H_jk v_k."""

import autograd_conformance.reference.autograd.functional as functional
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _one_input_at_a_time(product):
    def product_per_input(func, inputs, v=None, create_graph=False, strict=False):
        if not isinstance(inputs, tuple) or len(inputs) == 1 or v is None:
            return product(func, inputs, v, create_graph, strict)
        results = []
        for j, x in enumerate(inputs):
            def along_j(moved, j=j):
                return func(*inputs[:j], moved, *inputs[j + 1:])
            output, result = product(along_j, x, v[j], create_graph, strict)
            results.append(result)
        return output, tuple(results)
    return product_per_input


_reference.replace(functional, "hvp", _one_input_at_a_time)
_reference.replace(functional, "vhp", _one_input_at_a_time)
