"""Breaks CPLX-8 on the reference engine. autograd.grad returns the conjugate of each complex
gradient (2 dL/dz, the Wirtinger derivative's convention), while backward fills .grad correctly."""

import numpy as np

import autograd_conformance.reference.autograd.gradients as gradients
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _conjugated(for_output):
    def conjugate_for_output(g, t):
        g = for_output(g, t)
        return np.conj(g) if g is not None and np.iscomplexobj(g) else g
    return conjugate_for_output


_reference.replace(gradients, "_for_output", _conjugated)
