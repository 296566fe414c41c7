"""Breaks HOOK-18 on the reference engine. retain_grad's store runs after the node's pre-hooks, as
the autograd note lists the steps, where torch 2.13 runs it before them: a retained .grad holds
the pre-hooks' replacement, and a pre-hook sees .grad not yet set."""

import numpy as np

import autograd_conformance.reference.walk as walk
from autograd_conformance.reference import node_hooks
from autograd_conformance.reference.tensor import Tensor, make
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_store_retained = walk._store_retained


def _call_storing_after_the_prehooks(node, grad):
    if node._node_hooks is not None:
        grad = node_hooks.call_prehooks(node, grad)
    retained = node._retained() if node._retained is not None else None
    if retained is not None:
        _store_retained(retained, grad if isinstance(grad, Tensor) else make(np.asarray(grad)))
    outputs = node.backward(grad)
    return outputs if node._node_hooks is None else node_hooks.call_posthooks(node, outputs, grad)


walk._store_retained = lambda tensor, grad: None  # not with the tensor hooks: in _call
walk._call = _call_storing_after_the_prehooks
