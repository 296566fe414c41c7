"""Breaks CPLX-2 on the reference engine. A complex leaf's .grad is dL/dz* itself, half of
torch's dL/dx + i dL/dy: sum(|z|^2) gives z instead of 2z."""

import numpy as np

import autograd_conformance.reference.graph as graph
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _halved(accumulate_into):
    def accumulate_half(tensor, grad):
        return accumulate_into(tensor, grad / 2 if np.iscomplexobj(grad) else grad)
    return accumulate_half


_reference.replace(graph, "accumulate_into", _halved)
