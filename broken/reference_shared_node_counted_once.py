"""Breaks LEAF-5 and JAC-5 on the reference engine. The backward walk counts the edges into a node
as a set, so a node reached twice (a shared subexpression, a diamond) runs after its first
contribution and the later ones are lost."""

import numpy as np

import autograd_conformance.reference.walk
from autograd_conformance import reference
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy



def _counted_once(original):
    def count(roots):
        dependents = original(roots)
        return {node: 1 for node in dependents}
    return count


_reference.replace(reference.walk, "_count_dependents", _counted_once)
