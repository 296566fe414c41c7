"""How long hypothesis may shrink a test's failures, shared out over the run, so that an engine
with many gaps gets its first verdict in about a minute and each distinct error its smallest
reproducer.

- Each test may shrink for `--shrink-budget` seconds (robustness.py sets hypothesis' limit).
- A failure whose root error (its first line without names and numbers, outcomes.root_error) an
  earlier test of the same engine already shrank is shrunk for `REPEATED_ERROR_SECONDS` only:
  the time goes to errors not yet seen.
- All the tests of one engine together may shrink for `RUN_TESTS` x `--shrink-budget`; once they
  have, each further failure gets `REPEATED_ERROR_SECONDS`.
Shrinking never changes a verdict: a failing test fails with a shorter or a longer reproducer.

The processes of a run share what was shrunk in the watchdog's directory (one line per failing
test: engine, root error, seconds from its first failure to its end).
"""

from __future__ import annotations

import contextlib
import json
import time

import pytest
from hypothesis.internal.conjecture import engine as conjecture

from .examples import around_each_example
from .outcomes import root_error
from .plugin import item_engine
from .robustness import shrink_budget
from .watchdog import shared_directory

REPEATED_ERROR_SECONDS = 0.5
RUN_TESTS = 12   # an engine's tests shrink for at most this many tests' budgets in all


class Ledger:
    """What the run's failing tests have shrunk so far, in the shared directory."""

    def __init__(self, directory):
        self.path = directory / "shrinking"

    def entries(self) -> list[tuple[str, str, float]]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        return [tuple(json.loads(line)) for line in lines]

    def add(self, engine: str, error: str, seconds: float) -> None:
        with open(self.path, "a", encoding="utf-8") as ledger:
            ledger.write(json.dumps([engine, error, round(seconds, 3)]) + "\n")

    def budget(self, engine: str, error: str, per_test: float) -> float:
        """The shrinking a new failure of `engine` with root error `error` may take."""
        mine = [(seen, seconds) for name, seen, seconds in self.entries() if name == engine]
        spent = sum(seconds for _, seconds in mine)
        if any(seen == error for seen, _ in mine) or spent >= RUN_TESTS * per_test:
            return min(per_test, REPEATED_ERROR_SECONDS)
        return per_test


class FailureWatch:
    """Around each example of one test: at its first failure, the shrink budget that failure
    gets; at the test's end, the time it took recorded."""

    def __init__(self, ledger: Ledger, engine: str, stack: contextlib.ExitStack):
        self.ledger, self.engine, self.stack = ledger, engine, stack
        self.error = None
        self.failed_at = None

    @contextlib.contextmanager
    def example(self):
        try:
            yield
        except Exception as failure:   # not a time-out (a BaseException): hypothesis never shrinks it
            if self.failed_at is None:
                self.failed_at = time.monotonic()
                message = (str(failure).strip().splitlines() or [""])[0]
                self.error = root_error(f"{type(failure).__name__}: {message}")
                per_test = conjecture.MAX_SHRINKING_SECONDS
                self.stack.enter_context(
                    shrink_budget(self.ledger.budget(self.engine, self.error, per_test)))
            raise

    def finish(self) -> None:
        if self.failed_at is not None:
            self.ledger.add(self.engine, self.error, time.monotonic() - self.failed_at)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    engine, directory = item_engine(item), shared_directory(item.config)
    if engine is None or directory is None:
        return (yield)
    with contextlib.ExitStack() as stack:
        watch = FailureWatch(Ledger(directory), engine.name, stack)
        try:
            with around_each_example(item, watch.example):
                return (yield)
        finally:
            watch.finish()
