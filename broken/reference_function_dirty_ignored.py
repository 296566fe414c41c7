"""Breaks FN-15 on the reference engine. ctx.mark_dirty does nothing: an argument that forward modified in place and returns comes
back as a new tensor (a view of it), and the argument keeps its old grad_fn."""

import autograd_conformance.reference.autograd.function as function
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

function.FunctionBackward.mark_dirty = lambda self, *tensors: None
