"""Breaks HOOK-15 on the reference engine. A node's pre-hooks get grad_outputs, but what they
return is dropped: the node consumes the gradient that arrived."""

import autograd_conformance.reference.node_hooks as node_hooks
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _observing_only(call_prehooks):
    def prehooks(node, grad):
        call_prehooks(node, grad)
        return grad
    return prehooks


_reference.replace(node_hooks, "call_prehooks", _observing_only)
