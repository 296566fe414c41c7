"""Breaks VIEW-13 on the reference engine. Views remember nothing of the grad mode they were taken in: one taken under no_grad is
modified in place in grad mode and recorded like any other."""

import autograd_conformance.reference.ops.views as views
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_init = views.View.__init__


def _init_in_grad_mode(self, positions, version):
    _init(self, positions, version)
    self.in_grad_mode = True


views.View.__init__ = _init_in_grad_mode
