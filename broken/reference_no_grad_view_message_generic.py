"""Breaks VIEW-14 on the reference engine. The error of an in-place op on a view taken under no_grad is worded its own way."""

import autograd_conformance.reference.ops.inplace as inplace
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

inplace.NO_GRAD_VIEW_MESSAGE = "cannot modify in place a view created under no_grad"
