"""Breaks MOD-9 on the reference engine. Module.zero_grad clears the grads of the parameters that
require grad only: a parameter frozen after a backward keeps its old gradient."""

import autograd_conformance.reference.nn as nn
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _trainable_only(self, set_to_none=True):
    for p in self.parameters():
        if not p.requires_grad or p._grad is None:
            continue
        if set_to_none:
            p._grad = None
        else:
            p._grad._array[...] = 0


nn.Module.zero_grad = _trainable_only
