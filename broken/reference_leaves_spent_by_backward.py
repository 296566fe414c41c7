"""Breaks RETAIN-9 on the reference engine. The engine keeps its graph per leaf, so backward without
retain_graph marks every leaf it reached as spent, and any later backward that reaches a spent leaf
raises the second-backward error, even through a graph built afresh by a new forward pass."""

from autograd_conformance import reference
from autograd_conformance.reference import graph, walk
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_spent = {}  # id -> leaf, kept alive so that an id is never reused


def _spending_leaves(run_backward):
    def run_and_spend(roots, grads, keep_graph, create_graph, targets=None):
        nodes = [node for node, _ in roots]
        reached = [node.variable for node in {*walk._count_dependents(nodes), *nodes}
                   if isinstance(node, graph.AccumulateGrad)]
        if any(id(leaf) in _spent for leaf in reached):
            raise RuntimeError(graph.FREED_MESSAGE)
        run_backward(roots, grads, keep_graph, create_graph, targets)
        if not keep_graph:
            _spent.update((id(leaf), leaf) for leaf in reached)
    return run_and_spend


_reference.replace(reference.walk, "run_backward", _spending_leaves)
