"""Breaks VIEW-3 on the reference engine. clone() records CloneBackward0 but returns the input's own elements, not a copy: a change to
the input shows in the clone."""

import autograd_conformance.reference.ops.copies as copies
from autograd_conformance.reference.graph import record
from autograd_conformance.reference.ops.common import output
from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

def _sharing(clone):
    def clone_sharing_storage(a):
        return output(a._array, record(copies.CloneBackward0, a))
    return clone_sharing_storage


_reference.replace(copies, "clone", _sharing)
Tensor.clone = copies.clone
