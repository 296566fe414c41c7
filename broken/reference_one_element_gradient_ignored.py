"""Breaks JAC-17 on the reference engine. backward(c) on a one-element output ignores c and
backpropagates ones, as backward() does."""

import autograd_conformance.reference.autograd.gradients as gradients
from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _ones_for_one_element(root_grads):
    def implicit_root_grads(outputs, grad_outputs, as_tensors):
        if grad_outputs is not None:
            given = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs)
            grad_outputs = [None if g is not None and out.numel() == 1 else g
                            for out, g in zip(gradients._as_tuple(outputs), given)]
        return root_grads(outputs, grad_outputs, as_tensors)
    return implicit_root_grads


_reference.replace(gradients, "_root_grads", _ones_for_one_element)
