"""Breaks ACC-11 on the reference engine. As in micrograd, a tensor made to require grad starts
with a zero gradient instead of None: .grad holds zeros before any backward (the sums that later
passes accumulate are unchanged)."""

import numpy as np

from autograd_conformance.reference import creation
from autograd_conformance.reference.tensor import make
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _zero_grads(leaf):
    def leaf_with_zero_grad(array, requires_grad):
        tensor = leaf(array, requires_grad)
        if requires_grad:
            tensor._grad = make(np.zeros_like(array))
        return tensor
    return leaf_with_zero_grad


_reference.replace(creation, "_leaf", _zero_grads)
