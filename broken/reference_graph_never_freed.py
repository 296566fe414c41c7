"""Breaks RETAIN-1 on the reference engine. The backward walk never releases saved values, so a
second backward without retain_graph succeeds."""

import numpy as np

import autograd_conformance.reference.walk
from autograd_conformance import reference
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy



def _keeping(original):
    def run_backward(roots, grads, keep_graph, create_graph, targets=None):
        return original(roots, grads, True, create_graph, targets)
    return run_backward


_reference.replace(reference.walk, "run_backward", _keeping)
