"""Breaks VAL-4 on the reference engine. tanh's differentiable backward (the create_graph path,
which second derivatives go through) is off by float32 rounding, a relative 2**-24: float64
gradients taken with create_graph=True, and the second derivatives from them, are wrong in the
eighth digit, while plain backward stays exact."""

import autograd_conformance.reference.ops.elementwise as elementwise
from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_backward = elementwise.TanhBackward0.backward


def _rounded(self, grad):
    grads = _backward(self, grad)
    if not isinstance(grad, Tensor):
        return grads
    return tuple(None if g is None else g * (1.0 + 2.0 ** -24) for g in grads)


elementwise.TanhBackward0.backward = _rounded
