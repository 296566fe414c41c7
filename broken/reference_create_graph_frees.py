"""Breaks RETAIN-5 on the reference engine. retain_graph defaults to False instead of to create_graph,
so a pass with create_graph=True frees the graph it differentiated."""

import autograd_conformance.reference.autograd.gradients as gradients
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _false_by_default(arguments):
    if arguments["retain_graph"] is None:
        arguments["retain_graph"] = False


_reference.rewrite_arguments(gradients, "backward", _false_by_default)
_reference.rewrite_arguments(gradients, "grad", _false_by_default)
