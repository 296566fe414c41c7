"""Breaks VIEW-11 on the reference engine. The node of a view re-read from its base is named AsStridedBackward, without torch's 0."""

import autograd_conformance.reference.ops.views as views
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

views.AsStridedBackward0.__name__ = views.AsStridedBackward0.__qualname__ = "AsStridedBackward"
