"""Breaks MOD-2 on the reference engine. nn.Parameter ignores requires_grad=False: every
parameter requires grad."""

import autograd_conformance.reference.nn as nn
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_new = nn.Parameter.__new__


def _requiring(cls, data=None, requires_grad=True):
    return _new(cls, data, True)


nn.Parameter.__new__ = staticmethod(_requiring)
