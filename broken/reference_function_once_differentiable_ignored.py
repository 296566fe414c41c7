"""Breaks FN-16 on the reference engine. once_differentiable returns backward unchanged: the gradients are recorded, so differentiating
them again succeeds instead of raising."""

import autograd_conformance.reference.autograd.function as function
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

function.once_differentiable = lambda backward: backward
