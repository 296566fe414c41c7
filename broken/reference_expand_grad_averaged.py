"""Breaks LAYOUT-3 on the reference engine. expand()'s backward averages the gradient over the
expanded dims instead of summing it: the shape is the input's, the values are divided by the
number of copies."""

import numpy as np

import autograd_conformance.reference.ops.views as views
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_summed = views.ExpandBackward0.backward


def _averaged(self, grad):
    (total,) = _summed(self, grad)
    copies = np.prod(grad.shape, dtype=int) // max(1, np.prod(total.shape, dtype=int))
    return (total / copies,)


views.ExpandBackward0.backward = _averaged
