"""Breaks VIEW-4 on the reference engine. Each view gets a version counter of its own, starting at its base's count: an in-place op
through the view does not move the base's _version, nor one through the base the view's."""

import autograd_conformance.reference.ops.views as views
from autograd_conformance.reference.tensor import _VersionCounter
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

def _own_counter(view_of):
    def view_of_with_own_counter(a, array, node, how):
        out = view_of(a, array, node, how)
        out._counter = _VersionCounter()
        out._counter.value = a._version
        out._view.version = out._counter.value
        return out
    return view_of_with_own_counter


_reference.replace(views, "view_of", _own_counter)
