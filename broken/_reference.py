"""Shared plumbing for the mutants built on the reference engine (reference/).

A reference mutant re-exports the `reference` namespace through a module `__getattr__` and, at
import, replaces one function of the reference engine's modules *in its own process* (the
conformance run against a mutant is a subprocess; reference/ itself is never edited). The engine
looks its helpers up as module globals at call time, so replacing `reference.walk.X` or
`reference.ops.common.X` (in every module that imported it by name) changes what every op and
backward pass does.
"""

from __future__ import annotations

import sys

from autograd_conformance import reference

version = reference.version
capabilities = reference.capabilities
to_numpy = reference.to_numpy


def delegate(attribute):
    if attribute.startswith("__"):
        raise AttributeError(attribute)
    return getattr(reference, attribute)


def replace(module, attribute, make):
    """Set `module.attribute` to `make(original)`, and every reference module's name for the original."""
    original = getattr(module, attribute)
    patched = make(original)
    prefix = reference.__name__ + "."
    for name, loaded in list(sys.modules.items()):
        if (name == reference.__name__ or name.startswith(prefix)) and getattr(loaded, attribute, None) is original:
            setattr(loaded, attribute, patched)
