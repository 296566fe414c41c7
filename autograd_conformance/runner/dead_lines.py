"""A failing test's reproducers without dead lines (harness/script.py, `drop_dead_lines`).

Hypothesis stops shrinking when its budget runs out (`--shrink-budget`; soon, on a slow engine),
and a failure's script may then keep assignments whose results nothing reads. Once a test has
failed, each of its reproducers loses those that replays show the failure does not need, within a
bounded time, before pytest prints it and the report and the baseline's evidence keep it. Not for
a known gap of the baseline: its failure shows its recorded reproducers, or the first failing
example of a run that does not shrink (baseline.py), on every run of the gate.
"""

from __future__ import annotations

import contextlib

import pytest

from ..harness.script import drop_dead_lines
from .baseline import excused
from .plugin import item_engine
from .robustness import TimeLimitExceeded, time_limit


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_call(item):
    """Among the innermost of the runner's wrappers, so that the replays run in the engine's
    context; the time limit of an example stops a replay that hangs."""
    engine = item_engine(item)
    if engine is None or excused(item):
        return (yield)
    try:
        return (yield)
    except Exception as failure:  # pytest's own outcomes (skip, xfail) are not Exceptions
        with contextlib.suppress(TimeLimitExceeded), \
                time_limit(item.config.getoption("test_timeout")):
            drop_dead_lines(failure, engine)
        raise
