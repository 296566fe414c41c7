"""Breaks RETAIN-11 on the reference engine. Tensor.backward takes create_graph as its second positional
argument (backward(gradient, create_graph, retain_graph)), so backward(v, True) builds a graph."""

import autograd_conformance.reference.methods as methods
from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _backward(self, gradient=None, create_graph=False, retain_graph=None, inputs=None):
    methods._backward(self, gradient, retain_graph, create_graph, inputs=inputs)


Tensor.backward = _backward
