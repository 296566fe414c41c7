"""Breaks FN-20 on the reference engine. A wrong number or shape of gradients raises RuntimeError with the engine's own words, not
torch's message."""

import autograd_conformance.reference.autograd.function as function
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_backward = function.FunctionBackward.backward


def _generic(self, grad):
    try:
        return _backward(self, grad)
    except RuntimeError as error:
        if "gradient" in str(error):
            raise RuntimeError("custom backward returned unusable gradients") from None
        raise


function.FunctionBackward.backward = _generic
