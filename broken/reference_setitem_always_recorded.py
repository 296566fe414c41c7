"""Breaks INP-15 on the reference engine. Index assignment is recorded whenever grad mode is on, as
a CopySlices node, even when neither the tensor nor the value requires grad: the tensor becomes a
non-leaf that requires grad."""

import autograd_conformance.reference.grad_mode as grad_mode
import autograd_conformance.reference.ops.inplace as inplace
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _copy_slices_in_grad_mode(record):
    def recorded(node_class, *inputs):
        if node_class is inplace.CopySlices and grad_mode.state.enabled:
            return node_class(*inputs)
        return record(node_class, *inputs)
    return recorded


_reference.replace(inplace, "record", _copy_slices_in_grad_mode)
