"""Breaks HOOK-14 on the reference engine. A node's post-hooks get grad_inputs and grad_outputs,
but what they return is dropped: the node passes on the gradients it computed."""

import autograd_conformance.reference.node_hooks as node_hooks
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _observing_only(call_posthooks):
    def posthooks(node, grad_inputs, grad):
        call_posthooks(node, grad_inputs, grad)
        return list(grad_inputs)
    return posthooks


_reference.replace(node_hooks, "call_posthooks", _observing_only)
