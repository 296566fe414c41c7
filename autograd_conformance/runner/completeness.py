"""Why a run's results fall short of every selected test's verdict: the one owner of a partial
run's reasons, which the report shows (its PARTIAL banner, the JSON's `partial`) and the baseline
writer refuses to write a baseline from (baseline.py, unless --partial-baseline).

Each reason has a kind, so that each reader takes the ones it needs: a crashed test is a verdict
(it failed) that the report still marks, and tests not run because their engine was given up are
shown by the report as the engine's unresponsiveness, yet leave a baseline incomplete.
"""

from __future__ import annotations

from dataclasses import dataclass

from .evidence import read
from .outcomes import crashed
from .watchdog import Terminated, journaled_tests

INTERRUPTED = "interrupted"     # Ctrl-C or SIGTERM: the tests after it did not run
STOPPED = "stopped"             # -x, --maxfail, ...: pytest stopped the session
CRASHED = "crashed"             # a test took its worker down; the run went on in a new one
UNFINISHED = "unfinished"       # a test cut short by the interruption
NO_RESULT = "no result"         # selected tests without a report
NOT_RUN = "not run"             # tests skipped because the run gave their engine up
_NAME = "autograd-conformance-completeness"


@dataclass(frozen=True)
class Shortfall:
    kind: str       # one of the kinds above
    text: str       # in the run's words, for the terminal and the report
    nodeid: str = ""    # the test cut short, for UNFINISHED: its reports so far do not count


def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(Completeness(config), _NAME)


def shortfalls(session) -> list[Shortfall]:
    """Why the run of `session` is partial; [] for a complete run (on the controller)."""
    return session.config.pluginmanager.get_plugin(_NAME).shortfalls(session)


class Completeness:
    """On the controller: which tests have their last report, which crashed or were not run, and
    whether the run was interrupted."""

    def __init__(self, config):
        self.config = config
        self.interrupted: str | None = None         # Ctrl-C / SIGINT, or SIGTERM
        self.finished: dict[str, bool] = {}         # nodeid -> its last report has arrived
        self.crashes: list[str] = []
        self.not_run: dict[str, str] = {}           # nodeid -> why its engine was given up
        self._found: list[Shortfall] | None = None

    def pytest_keyboard_interrupt(self, excinfo):
        self.interrupted = "SIGTERM" if excinfo.errisinstance(Terminated) else "Ctrl-C / SIGINT"

    def pytest_runtest_logreport(self, report):
        self.finished[report.nodeid] = report.when == "teardown" or crashed(report)
        if crashed(report):
            self.crashes.append(str(report.longrepr))
        why = read(report).not_run
        if why is not None:
            self.not_run[report.nodeid] = why

    def unfinished(self) -> list[str]:
        """The tests whose run was cut short: some of their reports came, not the last."""
        return [nodeid for nodeid, finished in self.finished.items() if not finished]

    def shortfalls(self, session) -> list[Shortfall]:
        if self._found is None:
            self._found = self._shortfalls(session)
        return self._found

    def _shortfalls(self, session) -> list[Shortfall]:
        found = []
        if self.interrupted:
            found.append(Shortfall(INTERRUPTED, f"interrupted ({self.interrupted}): the tests "
                                                f"after it did not run"))
        elif session.shouldstop:
            found.append(Shortfall(STOPPED, f"stopped early: {session.shouldstop}"))
        if session.shouldfail:
            found.append(Shortfall(STOPPED, f"stopped early: {session.shouldfail}"))
        found += [Shortfall(CRASHED, f"{crash}; it is reported as failed, the run went on in a "
                                     f"new worker") for crash in self.crashes]
        unfinished = self.unfinished()
        if self.interrupted:
            # a test interrupted before its first report (in its setup) left only its journal
            unfinished += [nodeid for nodeid in journaled_tests(self.config)
                           if nodeid and nodeid not in self.finished and nodeid not in unfinished]
        found += [Shortfall(UNFINISHED, f"interrupted while running {nodeid}", nodeid)
                  for nodeid in unfinished]
        missing = session.testscollected - sum(self.finished.values())
        if missing > 0:
            found.append(Shortfall(NO_RESULT, f"{missing} of {session.testscollected} selected "
                                              f"tests have no result"))
        if self.not_run:
            first = next(iter(self.not_run.values()))
            found.append(Shortfall(NOT_RUN, f"{len(self.not_run)} tests were not run ({first})"))
        return found
