"""Breaks JAC-10 on the reference engine. autograd.grad(..., is_grads_batched=True) pulls back the
sum of the batch for every row, as if the vectors were gradients of one root to add up, instead
of one vector-Jacobian product per vector."""

import numpy as np

import autograd_conformance.reference.autograd.gradients as gradients
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _summed(batched):
    def every_row_the_sum(outputs, inputs, grad_outputs, retain_graph, **options):
        batches = grad_outputs if isinstance(grad_outputs, tuple) else (grad_outputs,)
        summed = tuple(gradients.make(np.broadcast_to(g._array.sum(axis=0), g.shape).copy())
                       for g in batches)
        return batched(outputs, inputs, summed, retain_graph, **options)
    return every_row_the_sum


_reference.replace(gradients, "_batched", _summed)
