"""Breaks SAV-6 on the reference engine. save_on_cpu keeps its copies in float32, so a float64 program's backward computes with
saved values rounded to float32."""

import numpy as np

import autograd_conformance.reference.autograd.graph as autograd_graph
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

def _float32_copies(self, pin_memory=False, device_type="cuda"):
    autograd_graph.saved_tensors_hooks.__init__(
        self, lambda t: t._array.astype(np.float32),
        lambda values: autograd_graph.make(values.astype(np.float64)))


autograd_graph.save_on_cpu.__init__ = _float32_copies
