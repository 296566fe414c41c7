"""Breaks MOD-14 on the reference engine. nn.Linear's bias gradient averages v over the batch
instead of summing it (a bias shared by every row gets the mean of their gradients)."""

import autograd_conformance.reference.ops.linalg as linalg
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


_backward = linalg.AddmmBackward0.backward


def _averaged_bias(self, grad):
    bias, *rest = _backward(self, grad)
    rows = grad.shape[0] if len(grad.shape) == 2 else 1
    return (None if bias is None else bias / rows, *rest)


linalg.AddmmBackward0.backward = _averaged_bias
