"""The reference engine whose hooks on graph nodes never return (as a young engine's hook loop
that waits on itself would): every program that registers one on a `grad_fn` hangs in its
backward, and nothing else does. A handful of tests among many: the engine gets its full verdict
with those tests failed as hung, and is never given up as unresponsive."""

import time

from autograd_conformance import reference
from autograd_conformance.reference.node_hooks import NodeHookMethods

name = "hangs-in-node-hooks"
version = reference.version
capabilities = reference.capabilities
to_numpy = reference.to_numpy
_register_prehook, _register_hook = NodeHookMethods.register_prehook, NodeHookMethods.register_hook


def __getattr__(attribute):
    return getattr(reference, attribute)


def _never_returns(*gradients):
    while True:
        time.sleep(0.01)


NodeHookMethods.register_prehook = lambda node, hook: _register_prehook(node, _never_returns)
NodeHookMethods.register_hook = lambda node, hook: _register_hook(node, _never_returns)
