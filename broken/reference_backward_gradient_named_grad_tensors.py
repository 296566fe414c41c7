"""Breaks JAC-15 on the reference engine. Tensor.backward names its gradient argument grad_tensors,
as autograd.backward does, so backward(gradient=v) is a TypeError."""

import autograd_conformance.reference.methods as methods
from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _backward(self, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    methods._backward(self, grad_tensors, retain_graph, create_graph, inputs=inputs)


Tensor.backward = _backward
