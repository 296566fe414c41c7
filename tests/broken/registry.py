"""The mutants' registry: each mutant is declared once, by `@mutant(*behaviour_ids)` on the function
that installs its bug, in the chapter module of the first behaviour it breaks.

The first ID is the behaviour the mutant was written against; further IDs are consequences the suite
must also notice: a conformance run of the suites selected with `--behaviour ID` must fail for
every ID listed (tests/test_broken_engines.py). A mutant's name says which engine it breaks
(`torch_...` or `reference_...`); its function patches that engine in the process that loads it
and returns the names its adapter overrides, if any.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

from autograd_conformance.harness.counts import Count


@dataclass(frozen=True)
class Mutant:
    name: str
    behaviours: tuple[str, ...]
    install: Callable[[], dict | None]
    corner: Count | None = None     # the count whose corner alone shows the bug, if any

    @property
    def base(self) -> str:
        """The engine the mutant breaks: "torch" or "reference"."""
        return "reference" if self.name.startswith("reference_") else "torch"

    @property
    def spec(self) -> str:
        """The `--engine` spec that loads the mutant."""
        return f"tests.broken:{self.name}"

    @property
    def bug(self) -> str:
        """What the mutant gets wrong, in a line or two (its function's docstring)."""
        return " ".join((self.install.__doc__ or "").split())


MUTANTS: dict[str, Mutant] = {}


def mutant(*behaviours: str, corner: Count | None = None):
    """Declare the decorated function a mutant that breaks `behaviours`; `corner`: the count
    (autograd_conformance/harness/counts.py) below whose corner the engine is right, so that only
    a test reaching the corner can kill it."""
    def declare(install):
        if install.__name__ in MUTANTS:
            raise ValueError(f"mutant {install.__name__} is declared twice")
        if not install.__name__.startswith(("torch_", "reference_")):
            raise ValueError(f"mutant {install.__name__}: the name says the engine it breaks "
                             f"(torch_... or reference_...)")
        MUTANTS[install.__name__] = Mutant(install.__name__, behaviours, install, corner)
        return install
    return declare


class Namespace:
    """A namespace with a few names overridden, the rest its target's: a mutant's adapter (the torch
    adapter or the reference engine), or a sub-namespace a mutant changes (`nn`, `optim`, ...)."""

    def __init__(self, target, **overrides):
        self._target = target
        self.__dict__.update(overrides)

    def __getattr__(self, attribute):
        return getattr(self._target, attribute)


@functools.cache
def engine(name: str) -> Namespace:
    """The adapter of mutant `name`: its base engine with the mutant's bug installed (once per
    process) and the names the mutant overrides in front."""
    found = MUTANTS[name]
    if found.base == "reference":
        from autograd_conformance import reference as base
    else:
        from autograd_conformance.adapters import torch_adapter as base
    # __name__: how a fresh process imports the engine (MISC-14's test runs one)
    return Namespace(base, name=name, __name__=found.spec, **(found.install() or {}))
