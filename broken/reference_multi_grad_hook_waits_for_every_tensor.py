"""Breaks HOOK-19 on the reference engine. A multi-grad hook in mode "all" waits for a gradient of
every one of its tensors, not only of those the backward pass reaches: where one is not reached,
it never fires."""

import autograd_conformance.reference.autograd.graph as autograd_graph
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

autograd_graph._reached = lambda backward_pass, tensors: len(tensors)
