"""Breaks VIEW-2 on the reference engine. A view's _base is the tensor it was taken from, not that tensor's own base: a view of a view
names the first view."""

import autograd_conformance.reference.ops.views as views
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

def _parent_as_base(view_of):
    def view_of_parent(a, array, node, how):
        out = view_of(a, array, node, how)
        out._base = a
        return out
    return view_of_parent


_reference.replace(views, "view_of", _parent_as_base)
