"""Breaks RETAIN-7 on the reference engine. A backward without retain_graph frees the graph by
unlinking it: every node it ran loses its next_functions."""

from autograd_conformance import reference
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _reachable(roots):
    seen, stack = set(), list(roots)
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(child for child, _ in node.next_functions)
    return seen


def _unlinking(run_backward):
    def run_and_unlink(roots, grads, keep_graph, create_graph, targets=None):
        nodes = _reachable([node for node, _ in roots])
        run_backward(roots, grads, keep_graph, create_graph, targets)
        if not keep_graph:
            for node in nodes:
                node.next_functions = ()
    return run_and_unlink


_reference.replace(reference.walk, "run_backward", _unlinking)
