"""Breaks OP-3 on the reference engine, almost: exp's backward multiplies in float32 and casts the
product back, so a float64 program keeps float64 gradients that are only float32-accurate (a
relative error of about 1e-8). Only an oracle at float64 precision sees it."""

import numpy as np

from autograd_conformance.reference.ops import elementwise
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _backward(self, grad):
    result, = self.saved(grad)
    low = np.asarray(grad, dtype=np.float32) * np.asarray(result, dtype=np.float32)
    return (low.astype(np.asarray(grad).dtype),)


elementwise.ExpBackward0.backward = _backward
