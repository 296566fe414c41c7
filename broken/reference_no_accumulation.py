"""Breaks ACC-1 and RETAIN-4 on the reference engine. AccumulateGrad overwrites .grad instead of
adding to it."""

import numpy as np

import autograd_conformance.reference.graph
from autograd_conformance import reference
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy



def _overwriting(original):
    def accumulate_into(tensor, grad):
        tensor._grad = None
        return original(tensor, grad)
    return accumulate_into


_reference.replace(reference.graph, "accumulate_into", _overwriting)
