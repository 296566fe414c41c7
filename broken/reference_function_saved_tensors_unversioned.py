"""Breaks FN-5 on the reference engine. ctx.saved_tensors returns what was saved without comparing versions: a saved tensor modified
in place is used with its new values."""

import autograd_conformance.reference.autograd.function as function
from autograd_conformance.reference.graph import FREED_MESSAGE
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

def _unchecked(self):
    if self._saved is None:
        raise RuntimeError(FREED_MESSAGE)
    return tuple(self._saved)


function.FunctionBackward.saved_tensors = property(_unchecked)
