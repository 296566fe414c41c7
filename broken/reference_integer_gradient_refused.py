"""Breaks JAC-12 on the reference engine. backward(gradient) refuses a gradient that is not floating
point instead of casting it to the output's dtype."""

import autograd_conformance.reference.autograd.gradients as gradients
from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _floats_only(root_grads):
    def checked_root_grads(outputs, grad_outputs, as_tensors):
        given = [grad_outputs] if isinstance(grad_outputs, Tensor) else grad_outputs or []
        if any(isinstance(g, Tensor) and not g.dtype.is_floating_point for g in given):
            raise RuntimeError("gradients must be floating point tensors")
        return root_grads(outputs, grad_outputs, as_tensors)
    return checked_root_grads


_reference.replace(gradients, "_root_grads", _floats_only)
