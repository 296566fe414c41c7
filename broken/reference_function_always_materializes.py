"""Breaks FN-9 on the reference engine. ctx.set_materialize_grads(False) does nothing: backward gets zeros, never None, for outputs
that no gradient reached."""

import autograd_conformance.reference.autograd.function as function
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

function.FunctionBackward.set_materialize_grads = lambda self, value: None
