"""The time limit of a conformance test.

- `--test-timeout SECONDS` (default 60; 0 turns it off): a test that runs an engine (the `engine`
  parameter; the project's own tests are not limited) and is still running after that long is
  stopped by SIGALRM and fails with `TimeLimitExceeded`, whose message names the limit. The
  exception derives from BaseException, not Exception, so hypothesis does not shrink it (every
  shrink step would wait for the limit again) and engines' `except Exception` cannot swallow it.
  Where SIGALRM cannot be used (Windows, or pytest not in the main thread) the soft limit is off,
  with one warning.
- In an xdist worker a hard limit backs the soft one: if the test is still running at twice the
  limit (stuck in C code that never returns to Python), faulthandler dumps the stacks and ends the
  worker; xdist reports the test as crashed and starts a new worker.

What happens after a time-out or a crash (the engine is given up after a few) is in
harness/watchdog.py. It does not change how tests judge engines: an engine's own exceptions are the
test's business.

Why not pytest-timeout: its signal method fails the test with pytest's `Failed`, which hypothesis
treats as an ordinary failure and shrinks (each shrink step waiting for the limit again), it limits
the project's own tests as well as the conformance tests, and the report needs the time-limit
exception's type to count a time-out as a fault of its engine. The part that is here is the
twenty lines of `time_limit`.
"""

from __future__ import annotations

import contextlib
import faulthandler
import signal
import sys
import threading
import warnings

import pytest

from .plugin import item_engine

DEFAULT_TIMEOUT = 60.0


class TimeLimitExceeded(BaseException):
    """The test ran past --test-timeout."""


def pytest_addoption(parser):
    group = parser.getgroup("autograd-conformance")
    group.addoption("--test-timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                    help=f"fail a test that runs longer than this (default {DEFAULT_TIMEOUT:g}; "
                         f"0: no limit)")


def soft_limit_available() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def time_limit(seconds: float, hard: bool = False):
    """Raise TimeLimitExceeded in the main thread after `seconds`; with `hard`, end the process
    after twice that if Python code never runs again."""
    if seconds <= 0:
        yield
        return
    if hard:
        faulthandler.dump_traceback_later(2 * seconds, exit=True, file=sys.stderr)
    if not soft_limit_available():
        try:
            yield
        finally:
            if hard:
                faulthandler.cancel_dump_traceback_later()
        return

    def stop(signum, frame):
        raise TimeLimitExceeded(f"test exceeded the time limit of {seconds:g} s "
                                f"(--test-timeout {seconds:g}); it was stopped")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if hard:
            faulthandler.cancel_dump_traceback_later()


def pytest_configure(config):
    if config.getoption("test_timeout") > 0 and not soft_limit_available():
        warnings.warn("--test-timeout: SIGALRM is not available here; tests have no time limit",
                      RuntimeWarning, stacklevel=1)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Limit the tests that run an engine (the conformance tests), not the project's own tests."""
    if item_engine(item) is None:
        return (yield)
    config = item.config
    with time_limit(config.getoption("test_timeout"), hard=hasattr(config, "workerinput")):
        return (yield)
