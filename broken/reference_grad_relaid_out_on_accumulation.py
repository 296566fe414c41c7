"""Breaks LAYOUT-2 on the reference engine. Accumulating into a .grad whose strides are not the
ones the leaf's first gradient would get (an assigned .grad of another layout) replaces it with a
new tensor of the default layout holding the sum, so a manually chosen layout is lost."""

import autograd_conformance.reference.graph as graph
import autograd_conformance.reference.layout as layout
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _relaid(accumulate_into):
    def accumulate_in_default_layout(tensor, grad):
        current = tensor._grad
        if current is not None and not isinstance(grad, graph.Tensor):
            default = layout.zeros_for_grad(tensor._array)
            if layout.strides(default) != layout.strides(current._array):
                default[...] = current._array + grad
                tensor._grad = graph.make(default)
                return
        accumulate_into(tensor, grad)
    return accumulate_in_default_layout


_reference.replace(graph, "accumulate_into", _relaid)
