"""Breaks VIEW-9 and VIEW-10 on the reference engine. A view keeps the grad_fn it was made with after its storage changed in place: gradients
through it ignore the change, whether made through the view or through its base."""

import autograd_conformance.reference.ops.views as views
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

def _follow_nothing(self, view):
    self.version = view._counter.value


views.View.follow_base = _follow_nothing
