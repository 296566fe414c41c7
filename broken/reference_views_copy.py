"""Breaks VIEW-1 on the reference engine. A view op returns a copy of its input's elements instead of sharing them: the graph and the
version counter are a view's, but a change through the base or the view is not seen by the other."""

import autograd_conformance.reference.ops.views as views
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

def _copying(view_of):
    def view_of_a_copy(a, array, node, how):
        return view_of(a, array.copy(), node, how)
    return view_of_a_copy


_reference.replace(views, "view_of", _copying)
