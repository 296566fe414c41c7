"""Breaks MODE-7 on the reference engine. A node saves inference tensors like any other: an
inference tensor used outside inference_mode by an op that saves it for backward is accepted (the
engine refuses only in-place changes and requires_grad for them)."""

import autograd_conformance.reference.graph as graph
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_save = graph.Node.save


def _save_inference_tensors_too(self, *values):
    inference = [value for value in values if isinstance(value, graph.Tensor) and value._inference]
    for value in inference:
        value._inference = False
    try:
        _save(self, *values)
    finally:
        for value in inference:
            value._inference = True


graph.Node.save = _save_inference_tensors_too
