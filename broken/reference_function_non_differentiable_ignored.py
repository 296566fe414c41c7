"""Breaks FN-8 on the reference engine. ctx.mark_non_differentiable does nothing: the marked outputs require grad like the others."""

import autograd_conformance.reference.autograd.function as function
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

function.FunctionBackward.mark_non_differentiable = lambda self, *tensors: None
