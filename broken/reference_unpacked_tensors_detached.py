"""Breaks SAV-9 on the reference engine. What unpack returns is used as a constant: under create_graph the saved tensors lose their
place in the graph, and the second derivatives through them are missing."""

import autograd_conformance.reference.graph as graph
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_unpacked = graph.Packed.unpacked


def _constant(self):
    return graph.make(_unpacked(self)._array)


graph.Packed.unpacked = _constant
