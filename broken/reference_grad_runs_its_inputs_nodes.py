"""Breaks HOOK-16 on the reference engine. autograd.grad (and backward(inputs=...)) also runs the
nodes of the tensors it differentiates for, as if they led to an input: the gradients are the same
(what those nodes pass on reaches nothing that is needed), but their hooks fire."""

import autograd_conformance.reference.walk as walk
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _with_the_inputs(leading_to):
    def leading_to_or_input(roots, targets):
        return leading_to(roots, targets) | set(targets)
    return leading_to_or_input


_reference.replace(walk, "_leading_to", _with_the_inputs)
