"""Breaks MOD-6 on the reference engine. A layer with parameters marks its output as requiring grad
whatever their flags (MOD-3 applied without looking at them): with every parameter frozen and a
plain input, the output is a leaf that requires grad and backward on it runs instead of raising."""

import autograd_conformance.reference.nn as nn
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_forward = nn.Linear.forward


def _marked(self, x):
    out = _forward(self, x)
    return out if out.requires_grad else out.requires_grad_()


nn.Linear.forward = _marked
