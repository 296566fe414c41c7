"""What a test needs of an adapter beyond its capabilities: the names of the contract it uses.

A capability is a declaration of behaviour (an engine that declares `custom_function` says its
Functions behave like torch's); the names are what a test touches to check it
(`autograd.function.once_differentiable`). One name an adapter lacks should cost the tests that use
it, not every test of its capability, so each test's names are recorded (suites/names.toml,
written by `python -m tools.test_names`, which runs every test on the reference engine and notes
the names its code uses), and the runner skips, on an engine that declares every capability a
test needs, the test whose names the adapter lacks, with a reason that names them. Names are
spelled as in CONTRACT_NAMES (autograd_conformance/harness/contract.py), which `lacking_names`
checks; core names are not recorded (core is always declared: an engine without one of its names
fails those tests).

The same file records the ops of the random programs' op set that each test's own code applies
(not its programs'), which the runner reads where an op is set aside (runner/op_verdicts.py).
"""

from __future__ import annotations

import functools
import importlib.resources
import tomllib
from collections import Counter
from dataclasses import dataclass

from ..harness.contract import lacking_names

NAMES_FILE = importlib.resources.files("autograd_conformance.suites") / "names.toml"


@dataclass(frozen=True)
class Needs:
    """What one suite test (or one parameter set of it) needs: the capabilities its marks name,
    and the names of the contract it used on the reference engine; and the ops its own code
    applied there."""

    needs: tuple[str, ...]
    names: tuple[str, ...]
    ops: tuple[str, ...]


@functools.cache
def recorded_needs() -> dict[str, Needs]:
    """Test key (see `key_of`) -> what it needs, as recorded in suites/names.toml."""
    data = tomllib.loads(NAMES_FILE.read_text(encoding="utf-8"))
    return {key: Needs(tuple(entry["needs"]), tuple(entry["names"]), tuple(entry["ops"]))
            for key, entry in data.items()}


def needed_capabilities(item) -> list[str]:
    """The capabilities a collected test's `needs` marks name, in order (function, class,
    module and parameter marks alike)."""
    return [cap for mark in item.iter_markers("needs") for cap in mark.args]


def key_of(nodeid: str, engine_name: str) -> str:
    """A suite test's id without its engine parameter, as names.toml keys it:
    `suites/test_x.py::test_y[reference-max]` -> `suites/test_x.py::test_y[max]`."""
    base, bracket, parameters = nodeid.partition("[")
    if not bracket:
        return nodeid
    parts = parameters[:-1]
    if parts == engine_name:
        return base
    if parts.startswith(engine_name + "-"):
        return f"{base}[{parts[len(engine_name) + 1:]}]"
    return nodeid


@functools.cache
def engine_lacks(engine) -> frozenset[str]:
    """The recorded names (of every test) that `engine`'s adapter lacks: looked up once per
    engine, not per test."""
    names = sorted({name for test in recorded_needs().values() for name in test.names})
    return frozenset(lacking_names(engine.ns, names))


def lacking_for(engine, test: Needs) -> list[str]:
    """The names that `test` uses and `engine`'s adapter lacks."""
    lacks = engine_lacks(engine)
    return [name for name in test.names if name in lacks]


def recorded_ops(key: str) -> tuple[str, ...]:
    """The ops of the op set that the test `key`'s own code applies; none where names.toml does
    not know the test."""
    test = recorded_needs().get(key)
    return test.ops if test else ()


def skip_reason(engine, key: str) -> str | None:
    """Why the test `key` cannot run on `engine`, which declares every capability it needs: the
    names it uses that the adapter lacks; None when it has them all, or names.toml does not know
    the test (a new one, until the file is written again: it runs)."""
    test = recorded_needs().get(key)
    lacking = lacking_for(engine, test) if test else []
    return f"engine {engine.name!r} lacks {', '.join(lacking)}" if lacking else None


@dataclass(frozen=True)
class CapabilityTests:
    """How many of the tests that need a capability can run on an engine that declares it."""

    tests: int                   # the tests that need the capability
    other_capabilities: int      # of them, those that need another capability it does not declare
    runnable: int                # those that can run: every capability declared, every name there
    unlock: Counter              # lacking name -> how many of the others it keeps from running


def capability_tests(engine, capability: str) -> CapabilityTests:
    """What declaring `capability` gives `engine`: its tests that can run, and which lacking
    names keep the rest from running (`--check-adapter` prints it)."""
    tests = [test for test in recorded_needs().values() if capability in test.needs]
    declared = [test for test in tests if all(map(engine.has, test.needs))]
    unlock = Counter()
    runnable = 0
    for test in declared:
        lacking = lacking_for(engine, test)
        unlock.update(lacking)
        runnable += not lacking
    return CapabilityTests(len(tests), len(tests) - len(declared), runnable, unlock)
