"""Breaks SAV-5 on the reference engine. disable_saved_tensors_hooks does nothing: hooks can be opened inside it, and it can be
entered while hooks are open."""

import autograd_conformance.reference.autograd.graph as autograd_graph
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

autograd_graph.disable_saved_tensors_hooks.__enter__ = lambda self: self
autograd_graph.disable_saved_tensors_hooks.__exit__ = lambda self, *exc_info: None
