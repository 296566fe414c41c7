"""Breaks MISC-8 on the reference engine. tensor(t) of a tensor t is t.clone(): a copy that stays
in t's graph, a non-leaf through which gradients reach what t was computed from."""

import autograd_conformance.reference.creation as creation
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _cloning(tensor):
    def tensor_of(data, dtype=None, requires_grad=False, device=None):
        if isinstance(data, creation.Tensor) and dtype is None:
            copy = data.clone()
            return copy.requires_grad_() if requires_grad else copy
        return tensor(data, dtype, requires_grad, device)
    return tensor_of


_reference.replace(creation, "tensor", _cloning)
