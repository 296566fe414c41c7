"""Shared plumbing for the mutants built on the reference engine (reference/).

A reference mutant re-exports the `reference` namespace through a module `__getattr__` and, at
import, replaces one function of the reference engine's modules *in its own process* (the
conformance run against a mutant is a subprocess; reference/ itself is never edited). The engine
looks its helpers up as module globals at call time, so replacing `reference.graph.X` or
`reference.ops.X` changes what every op and backward pass does.
"""

from __future__ import annotations

from autograd_conformance import reference

version = reference.version
capabilities = reference.capabilities
to_numpy = reference.to_numpy


def delegate(attribute):
    if attribute.startswith("__"):
        raise AttributeError(attribute)
    return getattr(reference, attribute)


def replace(module, attribute, make):
    """Set `module.attribute` to `make(original)`."""
    original = getattr(module, attribute)
    setattr(module, attribute, make(original))
