"""Breaks HOOK-13 on the reference engine. Of the nodes ready at the same time, the walk runs the
oldest first (a FIFO where torch runs the most recently created node first): gradients are
unchanged, but hooks on independent branches fire in creation order."""

import itertools

import autograd_conformance.reference.graph
from autograd_conformance import reference
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

# Node.__init__ takes `-next(_creation_order)` as the walk's priority: counting down makes the
# oldest node the smallest, so the walk's heap pops it first.
reference.graph._creation_order = itertools.count(0, -1)
