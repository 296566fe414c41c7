"""Breaks INP-7 on the reference engine. The version-counter error reports a modified flag, not the
versions: always 'is at version 1; expected version 0', however many in-place ops there were
before and after the tensor was saved."""

import autograd_conformance.reference.graph as graph
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _flag_only(message):
    def modified_message(tensor, expected, node):
        return message(tensor, expected, node).replace(
            f"is at version {tensor._version}; expected version {expected}",
            "is at version 1; expected version 0")
    return modified_message


_reference.replace(graph, "_modified_message", _flag_only)
