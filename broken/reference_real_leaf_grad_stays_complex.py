"""Breaks CPLX-5 on the reference engine. A real input's gradient from a complex path keeps the
complex dtype: the op passes it on uncast, and the real leaf's .grad becomes complex."""

import numpy as np

import autograd_conformance.reference.graph as graph
import autograd_conformance.reference.ops.common as common
from autograd_conformance.reference.tensor import make
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _uncast(cast):
    def cast_unless_complex(grad, dtype):
        return grad if np.iscomplexobj(grad) and dtype.kind != "c" else cast(grad, dtype)
    return cast_unless_complex


def _stored_as_is(accumulate_into):
    def accumulate_complex(tensor, grad):
        if np.iscomplexobj(grad) and not np.iscomplexobj(tensor._array) and tensor._grad is None:
            tensor._grad = make(np.array(grad))
            return None
        return accumulate_into(tensor, grad)
    return accumulate_complex


_reference.replace(common, "cast", _uncast)
_reference.replace(graph, "accumulate_into", _stored_as_is)
