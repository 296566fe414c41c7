"""Each conformance test starts from a clean engine and is charged with what it leaves.

After every example of a test (examples.py), the switches of the engine's global state that its
contract exposes (autograd_conformance/harness/engine_state.py: grad mode, inference mode, anomaly
mode, an open dual level, open saved-tensor hooks, the default dtype) are read. A switch left
changed fails that test: its check is written into the example's script, so the reproducer ends
at `assert clean, f"the test left grad mode off: ..."`, and it is put back at once, so that the
next example, and the next test in the same worker, never sees it. Before each test the state is
read too, and put back silently if something outside any test changed it. Without this, one
engine bug that leaves grad mode off fails every later test of its worker, and which tests those
are depends on the worker count.
"""

from __future__ import annotations

import contextlib

import pytest

from ..harness.engine_state import changed, put_back, switches_of
from .examples import around_each_example
from .plugin import LAST_SCRIPT, item_engine


class EngineStateLeft(AssertionError):
    """A test left the engine's global state changed (and no script of it could show it)."""


_SWITCHES: dict[str, tuple] = {}    # engine name -> the switches it exposes, found once


def _switches(engine) -> tuple:
    if engine.name not in _SWITCHES:
        _SWITCHES[engine.name] = switches_of(engine)
    return _SWITCHES[engine.name]


def _stuck_note(stuck) -> str:
    return (f"{', '.join(switch.what for switch in stuck)} could not be put back: the engine's "
            f"later tests in this process run with it changed")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    engine = item_engine(item)
    switches = _switches(engine) if engine is not None else ()
    if not switches:
        return (yield)
    left = changed(switches, engine.ns)
    stuck = put_back(left, engine.ns) if left else []
    if stuck:
        raise EngineStateLeft(f"an earlier test left the engine changed, and {_stuck_note(stuck)}")
    with around_each_example(item, lambda: charged(item, engine, switches)):
        return (yield)


@contextlib.contextmanager
def charged(item, engine, switches):
    """One example: afterwards, a switch it left changed fails it (if it did not fail already)
    and is put back."""
    before = item.stash.get(LAST_SCRIPT, None)
    try:
        yield
    except BaseException as failure:
        left = changed(switches, engine.ns)
        if left:
            stuck = put_back(left, engine.ns)
            if isinstance(failure, Exception):
                failure.add_note(f"The test also {'; '.join(s.left for s in left)}"
                                 + (f"; {_stuck_note(stuck)}" if stuck else "") + ".")
        raise
    left = changed(switches, engine.ns)
    if not left:
        return
    script = item.stash.get(LAST_SCRIPT, None)
    try:   # always raises: the charge's failed check, or this
        if script is not None and script is not before:   # the example's own script
            left[0].charge(script)
        raise EngineStateLeft(f"the test {left[0].left}: every test must leave the engine as "
                              f"it found it")
    except BaseException as failure:   # noqa: BLE001 - put back whatever the charge raised
        stuck = put_back(left, engine.ns)
        if isinstance(failure, Exception) and (len(left) > 1 or stuck):
            failure.add_note("; ".join([f"it also {s.left}" for s in left[1:]]
                                       + ([_stuck_note(stuck)] if stuck else [])))
        raise
