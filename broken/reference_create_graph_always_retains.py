"""Breaks RETAIN-6 on the reference engine. create_graph=True keeps the graph even when retain_graph=False
is passed explicitly."""

import autograd_conformance.reference.autograd.gradients as gradients
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _retained_under_create_graph(arguments):
    if arguments["create_graph"]:
        arguments["retain_graph"] = True


_reference.rewrite_arguments(gradients, "backward", _retained_under_create_graph)
_reference.rewrite_arguments(gradients, "grad", _retained_under_create_graph)
