"""Breaks HO-5 on the reference engine. Under create_graph the seed gradients are leaves that require
grad, so every gradient is recorded: the gradient of a function linear in x, a constant, requires
grad (and its derivative is taken with respect to the seed)."""

import autograd_conformance.reference.autograd.gradients as gradients
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _requiring_seeds(root_grads):
    def seeds(outputs, grad_outputs, as_tensors):
        grads = root_grads(outputs, grad_outputs, as_tensors)
        if not as_tensors:
            return grads
        return [grad if grad.requires_grad else grad.detach().requires_grad_() for grad in grads]
    return seeds


_reference.replace(gradients, "_root_grads", _requiring_seeds)
