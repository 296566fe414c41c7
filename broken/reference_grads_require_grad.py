"""Breaks LEAF-11 on the reference engine. The gradient a leaf accumulates is stored as a tensor that
requires grad, as if every backward built a graph."""

import autograd_conformance.reference.graph as graph
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _requiring(accumulate_into):
    def accumulate_requiring(tensor, grad):
        accumulate_into(tensor, grad)
        tensor._grad._requires_grad = True
    return accumulate_requiring


_reference.replace(graph, "accumulate_into", _requiring)
