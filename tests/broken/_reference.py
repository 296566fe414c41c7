"""Shared plumbing for the mutants built on the reference engine (reference/).

A reference mutant's function replaces one function of the reference engine's modules *in its own
process* (the conformance run against a mutant is a process of its own; reference/ itself is never
edited); its adapter is the reference engine with the names the function returns in front
(registry.engine). The engine
looks its helpers up as module globals at call time, so replacing `reference.walk.X` or
`reference.ops.common.X` (in every module that imported it by name) changes what every op and
backward pass does.
"""

from __future__ import annotations

import inspect
import sys

from autograd_conformance import reference


def replace(module, attribute, make):
    """Set `module.attribute` to `make(original)`, and every reference module's name for the original
    (for `autograd.gradients.backward`, Tensor.backward's own name for it, `methods._backward`, too)."""
    original = getattr(module, attribute)
    patched = make(original)
    prefix = reference.__name__ + "."
    for name, loaded in list(sys.modules.items()):
        if (name == reference.__name__ or name.startswith(prefix)) and getattr(loaded, attribute, None) is original:
            setattr(loaded, attribute, patched)
    if reference.methods._backward is original:
        reference.methods._backward = patched


def rewrite_arguments(module, attribute, rewrite):
    """`replace` the function `module.attribute` by one that first hands its arguments (bound to
    the original's signature, defaults applied) to `rewrite(arguments)`, which changes them in
    place."""
    def make(original):
        signature = inspect.signature(original)

        def rewritten(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            rewrite(bound.arguments)
            return original(*bound.args, **bound.kwargs)
        return rewritten

    replace(module, attribute, make)


def call_counter():
    """`count(tensor)`: how many times it has been called with this tensor, this call included,
    for a mutant that goes wrong only from the n-th pass that reaches a tensor. Each tensor is
    kept alive, so that its id is never reused by another."""
    seen = {}

    def count(tensor):
        entry = seen.setdefault(id(tensor), [tensor, 0])
        entry[1] += 1
        return entry[1]
    return count
