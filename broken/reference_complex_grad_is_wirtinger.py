"""Breaks CPLX-2 on the reference engine. A complex leaf's .grad is the conjugate of torch's,
2 dL/dz instead of 2 dL/dz*, as in a convention that stores the Wirtinger derivative."""

import numpy as np

import autograd_conformance.reference.graph as graph
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _conjugated(accumulate_into):
    def accumulate_conjugate(tensor, grad):
        return accumulate_into(tensor, np.conj(grad) if np.iscomplexobj(grad) else grad)
    return accumulate_conjugate


_reference.replace(graph, "accumulate_into", _conjugated)
