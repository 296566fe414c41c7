"""Breaks GRAD-7 on the reference engine. sqrt's backward divides by 2 * sqrt(x) + 1e-30, a "safe"
sqrt: at x = 0 the gradient is a huge finite number instead of inf, and 0 times it is 0, not NaN,
so anomaly mode has no NaN to flag. Elsewhere the epsilon vanishes in rounding."""

import autograd_conformance.reference.ops.elementwise as elementwise
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _safe_backward(self, grad):
    result, = self.saved(grad)
    return (grad / (2 * result + 1e-30),)


elementwise.SqrtBackward0.backward = _safe_backward
