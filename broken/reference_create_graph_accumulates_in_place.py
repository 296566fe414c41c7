"""Breaks ACC-4 on the reference engine. Under create_graph=True a second pass adds its gradient
into the existing .grad tensor in place, so the tensor of the first pass changes under whoever
holds it, instead of .grad becoming a new tensor that holds the sum."""

import autograd_conformance.reference.graph as graph
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


_accumulate_into = graph.accumulate_into


def _in_place(tensor, grad):
    if isinstance(grad, graph.Tensor) and tensor._grad is not None:
        tensor._grad._array += grad._array
    else:
        _accumulate_into(tensor, grad)


graph.accumulate_into = _in_place
