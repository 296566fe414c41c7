"""Breaks JAC-4 on the reference engine. backward() on a complex one-element output creates the
implicit gradient 1 + 0j instead of raising."""

import numpy as np

import autograd_conformance.reference.autograd.gradients as gradients
from autograd_conformance.reference.tensor import make
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _implicit_complex_ones(root_grads):
    def root_grads_with_complex_ones(outputs, grad_outputs, as_tensors):
        outputs = gradients._as_tuple(outputs)
        if grad_outputs is None:
            grad_outputs = [make(np.ones(out.shape, out._array.dtype))
                            if out._array.dtype.kind == "c" and out.numel() == 1 else None
                            for out in outputs]
        return root_grads(outputs, grad_outputs, as_tensors)
    return root_grads_with_complex_ones


_reference.replace(gradients, "_root_grads", _implicit_complex_ones)
