"""Breaks FWD-5 on the reference engine. A tangent is never deleted: leaving the dual_level does
not end it, so after the level, and in the next one, the tensor still has it."""

import autograd_conformance.reference.dual as dual
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _kept(tangent):
    def tangent_of_any_level(t):
        entry = t._tangent
        return None if entry is None or dual._modes.inference else entry[1]
    return tangent_of_any_level


_reference.replace(dual, "tangent", _kept)
