"""The time limits of a conformance test: an engine that hangs is stopped, a slow one is not.

- `--test-timeout SECONDS` (default 60; 0 turns it off): each example of a test that runs an engine
  (one call of the test's body, with the program hypothesis drew; a test without hypothesis is one
  example; the project's own tests are not limited) may run that long. An example still running
  after it is stopped by SIGALRM and fails with `TimeLimitExceeded`, whose message names the
  limit: that engine hung. Hypothesis' own work between examples (generating, shrinking,
  replaying) never runs under the alarm, so a slow engine whose examples each end in time gets its
  verdict, however many examples it takes. The exception derives from BaseException, not
  Exception, so hypothesis does not shrink it (every shrink step would wait for the limit again)
  and engines' `except Exception` cannot swallow it. Where SIGALRM cannot be used (Windows, or
  pytest not in the main thread) the soft limit is off, with one warning.
- `--shrink-budget SECONDS` (default 30): how long hypothesis may shrink (and explain) a test's
  failures; then it stops and reports the smallest counterexamples found so far (hypothesis'
  own limit, five minutes, set lower: a slow engine runs every shrink step).
- In an xdist worker a hard limit backs the soft one: if an example is still running at twice the
  limit (stuck in C code that never returns to Python), faulthandler dumps the stacks and ends the
  worker; xdist reports the test as crashed and starts a new worker.

What happens after a time-out or a crash (the engine is given up after a few) is in
autograd_conformance/runner/watchdog.py. It does not change how tests judge engines: an engine's
own exceptions are the test's business.

Why not pytest-timeout: its signal method fails the test with pytest's `Failed`, which hypothesis
treats as an ordinary failure and shrinks (each shrink step waiting for the limit again), it limits
the whole test, hypothesis' work included, and the project's own tests as well as the conformance
tests, and the report needs the time-limit exception's type to count a time-out as a fault of its
engine.
"""

from __future__ import annotations

import contextlib
import faulthandler
import signal
import sys
import threading
import time
import warnings

import hypothesis
import pytest

from .examples import around_each_example
from .options import DEFAULT_SHRINK_BUDGET
from .plugin import item_engine


class TimeLimitExceeded(BaseException):
    """An example of the test ran past --test-timeout."""


def soft_limit_available() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


class TimeLimit:
    """`seconds` for each `example()` run inside it: TimeLimitExceeded in the main thread when an
    example runs longer; with `hard`, the process ends when one runs twice as long and Python code
    never runs again."""

    def __init__(self, seconds: float, hard: bool = False):
        self.seconds = seconds if seconds > 0 else 0
        self.hard = hard and self.seconds > 0
        self.soft = self.seconds > 0 and soft_limit_available()
        self._armed_at = None   # when the hard limit was last armed

    def __enter__(self):
        if self.soft:
            self._previous = signal.signal(signal.SIGALRM, self._stop)
        return self

    def __exit__(self, *exc_info):
        if self.soft:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)
        if self._armed_at is not None:
            faulthandler.cancel_dump_traceback_later()
            self._armed_at = None

    def _stop(self, signum, frame):
        raise TimeLimitExceeded(f"test exceeded the time limit of {self.seconds:g} s "
                                f"(--test-timeout {self.seconds:g}); it was stopped")

    @contextlib.contextmanager
    def example(self):
        if self.hard:
            self._rearm_hard_limit()
        if self.soft:
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        try:
            yield
        finally:
            if self.soft:
                signal.setitimer(signal.ITIMER_REAL, 0)

    def _rearm_hard_limit(self) -> None:
        """Arm faulthandler for 2 x seconds from now, unless it was armed less than half the limit
        ago (then it fires no earlier than 1.5 x seconds after this example starts): re-arming it
        for every example would cost a thread's wake-up each time."""
        now = time.monotonic()
        if self._armed_at is None or now - self._armed_at > self.seconds / 2:
            faulthandler.dump_traceback_later(2 * self.seconds, exit=True, file=sys.stderr)
            self._armed_at = now


@contextlib.contextmanager
def time_limit(seconds: float, hard: bool = False):
    """Raise TimeLimitExceeded in the main thread after `seconds` (one example)."""
    with TimeLimit(seconds, hard) as limit, limit.example():
        yield


# The shrink budget of a profile made for a quick first verdict, where --shrink-budget is not given.
PROFILE_SHRINK_BUDGETS = {"explore": 5.0}


def pytest_configure(config):
    if config.getoption("test_timeout") > 0 and not soft_limit_available():
        warnings.warn("--test-timeout: SIGALRM is not available here; tests have no time limit",
                      RuntimeWarning, stacklevel=1)
    budget = config.getoption("shrink_budget")
    if budget is None:
        budget = PROFILE_SHRINK_BUDGETS.get(config.getoption("hypothesis_profile", None),
                                            DEFAULT_SHRINK_BUDGET)
    set_shrink_budget(budget)


def set_shrink_budget(seconds: float) -> float:
    """Hypothesis stops shrinking after MAX_SHRINKING_SECONDS and reports the smallest failures
    found so far; the limit is a module global that it reads when shrinking starts. Returns the
    budget it replaces."""
    from hypothesis.internal.conjecture import engine
    if not hasattr(engine, "MAX_SHRINKING_SECONDS"):
        raise RuntimeError(f"hypothesis {hypothesis.__version__} has no MAX_SHRINKING_SECONDS: "
                           f"--shrink-budget cannot bound shrinking; use the tested hypothesis "
                           f"(see README)")
    previous, engine.MAX_SHRINKING_SECONDS = engine.MAX_SHRINKING_SECONDS, seconds
    return previous


@contextlib.contextmanager
def shrink_budget(seconds: float):
    """At most `seconds` of shrinking (and no more than the run's budget) inside the block."""
    from hypothesis.internal.conjecture import engine
    previous = set_shrink_budget(min(seconds, engine.MAX_SHRINKING_SECONDS))
    try:
        yield
    finally:
        set_shrink_budget(previous)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Limit each example of the tests that run an engine (the conformance tests), not the
    project's own tests."""
    if item_engine(item) is None:
        return (yield)
    config = item.config
    hard = hasattr(config, "workerinput")
    with TimeLimit(config.getoption("test_timeout"), hard=hard) as limit, \
            around_each_example(item, limit.example):
        return (yield)
