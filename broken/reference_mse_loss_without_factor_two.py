"""Breaks MOD-15 on the reference engine. MSELoss's gradient forgets the 2 of d(d^2) = 2d: it is
(input - target) / n, half of torch's."""

import autograd_conformance.reference.ops.reductions as reductions
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


_backward = reductions.MseLossBackward0.backward


def _halved(self, grad):
    return tuple(None if g is None else g * 0.5 for g in _backward(self, grad))


reductions.MseLossBackward0.backward = _halved
