"""Breaks FUNC-8 on the reference engine. With vectorize=True, jacobian returns each block as the
batched call gives it, one row per output element, (output.numel(),) + input.shape, without
reshaping it to output.shape + input.shape."""

import autograd_conformance.reference.autograd.functional as functional
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _unshaped(blocks):
    def rows_as_batched(i, out, inputs, create_graph, strict, vectorize):
        result = blocks(i, out, inputs, create_graph, strict, vectorize)
        if not vectorize:
            return result
        return tuple(block.reshape((out.numel(),) + x.shape) for block, x in zip(result, inputs))
    return rows_as_batched


_reference.replace(functional, "_blocks", _unshaped)
