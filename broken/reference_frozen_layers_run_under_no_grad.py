"""Breaks MOD-7 on the reference engine. A layer whose parameters are all frozen runs under
no_grad: its output is a constant, so the gradient no longer reaches the trainable layers before
it."""

import autograd_conformance.reference.grad_mode as grad_mode
import autograd_conformance.reference.nn as nn
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_forward = nn.Linear.forward


def _frozen_under_no_grad(self, x):
    if any(p.requires_grad for p in self.parameters()):
        return _forward(self, x)
    with grad_mode.no_grad():
        return _forward(self, x)


nn.Linear.forward = _frozen_under_no_grad
