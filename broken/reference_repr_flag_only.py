"""Breaks GFN-8 on the reference engine. repr() shows requires_grad=True for every tensor that requires
grad, non-leaves included, instead of their grad_fn=<Name>."""

import re

from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_repr = Tensor.__repr__


def _flag_only(self):
    return re.sub(r"grad_fn=<\w+>", "requires_grad=True", _repr(self))


Tensor.__repr__ = _flag_only
