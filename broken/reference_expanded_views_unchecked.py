"""Breaks VIEW-15 on the reference engine. In-place ops do not check whether elements of a view share memory: writing into an expanded
view reaches NumPy, which refuses its read-only broadcast array with a ValueError."""

import autograd_conformance.reference.ops.views as views
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

views.View.overlaps = lambda self: False
