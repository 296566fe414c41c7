"""Breaks JAC-14 on the reference engine. autograd.backward pairs roots and gradients without checking
their counts: the roots after the last gradient are silently dropped."""

import autograd_conformance.reference.autograd.gradients as gradients
from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _truncating(root_grads):
    def paired_root_grads(outputs, grad_outputs, as_tensors):
        if grad_outputs is not None and not isinstance(grad_outputs, Tensor):
            outputs = outputs[:len(tuple(grad_outputs))]
        return root_grads(outputs, grad_outputs, as_tensors)
    return paired_root_grads


_reference.replace(gradients, "_root_grads", _truncating)
