"""Breaks FUNC-4 on the reference engine. hessian takes the inner gradient without create_graph, so
the outer jacobian differentiates a constant: every second derivative comes out zero."""

import autograd_conformance.reference.autograd.functional as functional
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _constant_gradient(hessian):
    def hessian_of_a_constant(func, inputs, create_graph=False, strict=False, vectorize=False,
                              outer_jacobian_strategy="reverse-mode"):
        def gradient(*xs):
            return functional.jacobian(lambda *a: func(*a).reshape(()), xs)  # no create_graph
        rows = functional.jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                                   vectorize=vectorize)
        return rows if isinstance(inputs, tuple) else rows[0]
    return hessian_of_a_constant


_reference.replace(functional, "hessian", _constant_gradient)
