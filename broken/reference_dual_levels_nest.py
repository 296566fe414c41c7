"""Breaks FWD-1 on the reference engine. A dual_level entered inside another is accepted: it
opens a new level and, on exit, gives back the outer one, as an engine with nested forward mode
would; torch refuses nesting."""

import autograd_conformance.reference.autograd.forward_ad as forward_ad
from autograd_conformance.reference import dual
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _enter(self):
    self.outer, dual.state.level = dual.state.level, object()
    return 0


def _exit(self, *exc_info):
    dual.state.level = self.outer


forward_ad.dual_level.__enter__ = _enter
forward_ad.dual_level.__exit__ = _exit
