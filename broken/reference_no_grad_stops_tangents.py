"""Breaks FWD-7 on the reference engine. Ops under no_grad carry no tangent: forward mode is
switched off with recording, as if no_grad applied to it."""

import autograd_conformance.reference.dual as dual
from autograd_conformance.reference import grad_mode
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _gated(jvp):
    def jvp_in_grad_mode(out, inputs, *rules):
        return jvp(out, inputs, *rules) if grad_mode.state.enabled else out
    return jvp_in_grad_mode


_reference.replace(dual, "jvp", _gated)
