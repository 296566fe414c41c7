"""Breaks RETAIN-8 on the reference engine. Backward releases the saved values of the root's own node
only, so another output's backward through the shared part of the graph still succeeds."""

from autograd_conformance import reference
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _freeing_roots(run_backward):
    def run_and_free_roots(roots, grads, keep_graph, create_graph, targets=None):
        run_backward(roots, grads, True, create_graph, targets)
        if not keep_graph:
            for node, _ in roots:
                if node._saved:
                    node._saved = None
    return run_and_free_roots


_reference.replace(reference.walk, "run_backward", _freeing_roots)
