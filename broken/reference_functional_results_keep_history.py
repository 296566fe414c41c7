"""Breaks FUNC-7 on the reference engine. The functional API returns its results as computed, never
detached: without create_graph, outputs and derivatives still require grad and have a grad_fn."""

import autograd_conformance.reference.autograd.functional as functional
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


_reference.replace(functional, "_finish", lambda finish: lambda tensors, create_graph: tuple(tensors))
