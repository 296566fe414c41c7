"""Breaks FN-13 on the reference engine. A gradient from backward goes on as backward returned it: not summed to the argument's shape
nor cast to its dtype."""

import autograd_conformance.reference.autograd.function as function
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

function.FunctionBackward._checked = lambda self, g, index, meta, as_tensors: (
    g if as_tensors else g._array)
