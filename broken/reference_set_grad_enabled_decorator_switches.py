"""Breaks MODE-11 on the reference engine. set_grad_enabled switches the mode when it is
constructed and, used as a decorator, does not switch it back: decorating a function with
@set_grad_enabled(flag) leaves the caller in that mode."""

import autograd_conformance.reference.grad_mode as grad_mode
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

grad_mode.set_grad_enabled.__call__ = grad_mode._Mode.__call__
