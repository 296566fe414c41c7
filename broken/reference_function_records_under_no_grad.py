"""Breaks FN-14 on the reference engine. Function.apply records its node whenever an argument requires grad, even under no_grad."""

import autograd_conformance.reference.autograd.function as function
from types import SimpleNamespace
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

function._state = SimpleNamespace(enabled=True)
