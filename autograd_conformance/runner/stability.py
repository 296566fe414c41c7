"""Unstable outcomes: a test that both passes and fails on one engine is reported as *unstable*,
never as a regression or a fix, so that nothing but a change of the engine flips a gate.

A conformance test is deterministic: one example is one script, and it runs the same way every
time. Except where the script starts threads (suites/test_threads.py): the test orders what the
threads do (which of them run their step together, which only after the others finished), but
what an engine does inside a step while another thread is inside its own is up to the scheduler,
and an engine whose code races (an unlocked read-modify-write of .grad) fails such a script in
some runs and not in others. So a reproducer that starts threads is replayed until its outcome is
certain (`harness.script.replay_until_certain`: it fails only if every replay failed, passes only
if every replay ran clean, and is unstable once it has done both), and
- a known gap is judged on its recorded reproducers so replayed (baseline.py): still failing if
  one of them fails, fixed only if every one passes, unstable otherwise (`UnstableOutcome`);
- a test whose example failed and then did not fail the same way when hypothesis ran it again
  (hypothesis' `FlakyFailure`) is unstable;
- in a gated run, a test not in the baseline that fails is replayed where each of its failing
  reproducers starts threads: unless one of them fails every replay, it is unstable.

How it is reported: in a run with `--baseline` (a gate) an unstable test is an expected failure
whose reason starts with "unstable:" and says what was seen; it does not fail the run, since it
shows no change of the engine that the gate could be sure of, and `--write-baseline` lists it. In
a run without a baseline it fails, as a conformance verdict (the engine broke the rule at least
once), with the same words in a note. Either way its report carries its reproducers and the
property `unstable` (also in the JUnit XML), and the terminal summary lists it.
"""

from __future__ import annotations

import pytest
from hypothesis.errors import FlakyFailure

from ..harness.script import replay_until_certain, reproducers
from .baseline import UnstableOutcome, excused
from .evidence import UNSTABLE, read
from .outcomes import outcome
from .plugin import item_engine, suite_nodeid
from .robustness import TimeLimitExceeded, time_limit

_WHY = pytest.StashKey[str]()   # why an item's test is unstable, for its report
_REASON = "unstable:"           # how an unstable known gap's reason starts, for pytest's output


def gated(config) -> bool:
    """Whether the run has a baseline: a gate, which only a change of the engine may turn red."""
    return bool(config.getoption("baseline", None))


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_call(item):
    """Report a conformance test that both failed and passed as unstable (see the module's
    docstring). The innermost of the runner's wrappers, so that the replays of a failure run in
    the engine's context."""
    engine = item_engine(item)
    if engine is None:
        return (yield)
    try:
        return (yield)
    except Exception as failure:  # pytest's own outcomes (skip, xfail) are not Exceptions
        why = _unstable(failure, item, engine)
        if why is None:
            raise
        item.stash[_WHY] = why
        if gated(item.config):
            listed = item.get_closest_marker("xfail") if excused(item) else None
            raise pytest.xfail.Exception(f"{_REASON} {why}" + (
                f"; {listed.kwargs['reason']}" if listed else "")) from failure
        failure.add_note(f"{_REASON} {why}")
        raise


def _unstable(failure: Exception, item, engine) -> str | None:
    """What shows that `failure` is not certain, or None where it is a failure."""
    if isinstance(failure, UnstableOutcome):
        return str(failure)
    if isinstance(failure, FlakyFailure):   # what hypothesis saw, in its words
        seen = failure.message.split("unreliable results: ", 1)[-1]
        return f"hypothesis ran a failing example again: {seen[:1].lower()}{seen[1:]}"
    if gated(item.config) and not excused(item):
        with time_limit(item.config.getoption("test_timeout")):
            return unstable_failure(reproducers(failure), engine)
    return None


def unstable_failure(found: list, engine) -> str | None:
    """Where every reproducer of a failure starts threads, replay each until its outcome is
    certain: what the replays gave, unless one of them failed every time (then None: the test
    fails, whatever its other reproducers do). None where one does not start threads."""
    if not found or not all(reproducer.starts_threads for reproducer in found):
        return None
    try:
        replayed = [replay_until_certain(reproducer, engine) for reproducer in found]
    except TimeLimitExceeded:
        return None     # a replay hung: the engine fails, whatever else it does
    if any(replays.verdict == "fails" for replays in replayed):
        return None
    return (f"its failing example starts threads, and replayed, its reproducer(s) "
            f"{', '.join(map(str, replayed))}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Put why a test is unstable on its report, for the controller, and on the test, for the
    JUnit XML."""
    report = yield
    why = item.stash.get(_WHY, None)
    if call.when == "call" and why is not None:
        report.user_properties.append((UNSTABLE, why))
        item.user_properties.append((UNSTABLE, why))
    return report


def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(UnstableSummary(config), "autograd-unstable-summary")


class UnstableSummary:
    """On the controller: the run's unstable tests, listed at its end."""

    def __init__(self, config):
        self.config = config
        self.unstable: dict[str, str] = {}     # nodeid -> what was seen, and what it did to the run

    def pytest_runtest_logreport(self, report):
        why = read(report).unstable if report.when == "call" else None
        if why is not None:
            verdict = "failed the run" if outcome(report) == "failed" else "an expected failure"
            self.unstable[suite_nodeid(self.config, report)] = f"{verdict}: {why}"

    def pytest_terminal_summary(self, terminalreporter):
        if self.unstable:
            terminalreporter.write_sep("-", f"unstable: {len(self.unstable)} test(s) both passed "
                                            f"and failed on their engine", yellow=True)
            for nodeid, why in self.unstable.items():
                terminalreporter.write_line(f"{nodeid} ({why})")
