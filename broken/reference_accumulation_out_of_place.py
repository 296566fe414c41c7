"""Breaks ACC-3 on the reference engine. A later backward pass replaces .grad with a new tensor
holding the sum (as under create_graph) instead of adding into the existing one, so a reference
to the earlier .grad keeps the old values."""

import autograd_conformance.reference.graph as graph
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _out_of_place(accumulate_into):
    def accumulate_into_a_new_tensor(tensor, grad):
        current = tensor._grad
        if current is None or isinstance(grad, graph.Tensor):
            accumulate_into(tensor, grad)
        else:
            tensor._grad = graph.make(current._array + grad)
    return accumulate_into_a_new_tensor


_reference.replace(graph, "accumulate_into", _out_of_place)
