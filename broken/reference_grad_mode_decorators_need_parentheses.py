"""Breaks MODE-10 on the reference engine. no_grad and enable_grad decorate only with parentheses:
`@no_grad` makes the function a no_grad object, and calling it decorates its argument instead of
running the function."""

import autograd_conformance.reference.grad_mode as grad_mode
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _always_a_mode(cls, orig_func=None):
    return object.__new__(cls)


grad_mode._NoArgumentMode.__new__ = staticmethod(_always_a_mode)
