"""Make every conformance run end, in bounded time, with a report, whatever the engine does.

- **Crashes are contained by default.** A conformance run without `-n` runs its tests in one xdist
  worker (as if `-n 1` were given), so an engine that ends the interpreter (`os._exit`, a
  segfault) takes down only that worker: xdist reports the test as crashed and starts a new worker.
  `-n 0` runs in the pytest process itself (for `--pdb`), where a crash ends the run.
- **A crash keeps its reproducer.** Each worker writes the test it is running and the reproducer
  its test last recorded to a small journal file; when the worker dies, the controller attaches
  that reproducer to xdist's crash report.
- **A hang is the verdict of one test.** A test that hits the time limit or crashes fails with
  the program it was running (its reproducer), and the run goes on: a young engine that hangs on a
  few programs gets its full verdict.
- **Unresponsive engines are given up.** Only when an engine hangs on most of what it is given:
  its last `--unresponsive-after N` (default 3) finished tests all timed out or crashed, and so did
  at least half of its tests so far. Then its remaining tests are skipped with a reason that
  starts with `not run:` and names the option; other engines go on. A known gap of the baseline
  that times out counts as a test that ran: its failure is expected (a slow gap runs past the
  limit), and a gated run must still reach the tests after it. The summary line, the JSON results
  and the HTML report mark the engine as unresponsive, and the run exits 1. A run against an
  engine that hangs in every backward so ends after about N x `--test-timeout`, plus what a clean
  run takes.
- **SIGTERM** is turned into an interruption (like Ctrl-C), so that the report of the tests that
  ran is still written, marked partial.

The processes of a run share a temporary directory: a worker appends a line there when one of its
tests ends or times out, the controller when a worker dies, and every worker reads the lines
before each test of an engine. xdist itself does the process management; nothing here starts or kills a
process.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from ..harness.engines import specs_from
from ..harness.script import Script, listening
from .evidence import HUNG, NOT_RUN, attach_crash, excuse_of
from .plugin import item_engine, selected_engines
from .robustness import TimeLimitExceeded

_STATE_DIR = "autograd_conformance_state"   # workerinput key: the shared directory
_WATCHDOG = "autograd-conformance-watchdog"


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that pytest ends the session and the report is written."""


def set_xdist_defaults(config) -> None:
    """Before xdist reads its options (runner.start calls this from pytest_cmdline_main): one
    worker by default, and enough worker restarts for every engine to use up its faults."""
    if not hasattr(config.option, "numprocesses") or hasattr(config, "workerinput"):
        return
    if config.option.numprocesses is None and not config.option.tx \
            and not config.getoption("usepdb") and not config.getoption("collectonly"):
        config.option.numprocesses = 1
    limit = config.getoption("unresponsive_after")
    workers = config.option.numprocesses
    if config.option.maxworkerrestart is None and limit > 0 and isinstance(workers, int):
        engines = len(specs_from(config.getoption("engine"), os.environ.get("AUTOGRAD_ENGINE")))
        config.option.maxworkerrestart = str(engines * (limit + workers) + 4 * workers)


def pytest_configure(config):
    worker_input = getattr(config, "workerinput", None)
    if worker_input is None:
        watchdog = Watchdog(config, Path(tempfile.mkdtemp(prefix="autograd-conformance-")))
        config.pluginmanager.register(watchdog, _WATCHDOG)
    elif _STATE_DIR in worker_input:
        config.stash[_SHARED] = SharedState(Path(worker_input[_STATE_DIR]),
                                            worker_input.get("workerid", "main"))


_SHARED = pytest.StashKey["SharedState"]()


class SharedState:
    """The directory the controller shares with its workers: one line per finished test of an
    engine (it ran, timed out or crashed), appended by whichever process sees it first, and one
    journal per worker (the running test and its latest reproducer)."""

    def __init__(self, directory: Path, worker: str = "main"):
        self.directory = directory
        self.worker = worker
        self._journal = None
        self._noted = ("", "")   # what the journal holds: (nodeid, reproducer)

    def record(self, engine: str, kind: str) -> None:
        """One finished test of `engine`: RAN, or a fault ("timed out", "crashed")."""
        with open(self.directory / "finished", "a", encoding="utf-8") as finished:
            finished.write(json.dumps([engine, kind]) + "\n")  # one short write: atomic in append mode

    def finished(self) -> dict[str, list[str]]:
        """Engine name -> the kinds of its finished tests, in the order they finished, over all
        processes of the run."""
        try:
            lines = (self.directory / "finished").read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return {}
        kinds: dict[str, list[str]] = {}
        for engine, kind in map(json.loads, lines):
            kinds.setdefault(engine, []).append(kind)
        return kinds

    def journal(self, nodeid: str, reproducer: str = "") -> None:
        """Note the running test (and its latest reproducer) where the controller can read it
        after this process has died: flushed to the OS, which keeps it whatever ends us. The file
        is rewritten for each test; within one, a reproducer that continues the one noted last (a
        script's next step) is appended, and any other follows a NUL (no rewrite per example)."""
        noted_nodeid, noted = self._noted
        if self._journal is None or nodeid != noted_nodeid:
            if self._journal is None:
                self._journal = open(self.directory / f"journal-{self.worker}", "w",
                                     encoding="utf-8")
            self._journal.seek(0)
            self._journal.truncate()
            self._journal.write(nodeid + "\n" + _SEPARATOR + reproducer)
        elif reproducer.startswith(noted):
            self._journal.write(reproducer[len(noted):])
        else:
            self._journal.write(_SEPARATOR + reproducer)
        self._journal.flush()
        self._noted = (nodeid, reproducer)

    def read_journal(self, worker: str) -> tuple[str, str]:
        """(nodeid, reproducer) that `worker` last noted; ("", "") if none."""
        try:
            text = (self.directory / f"journal-{worker}").read_text(encoding="utf-8")
        except FileNotFoundError:
            return "", ""
        nodeid, _, notes = text.partition("\n")
        return nodeid, notes.rpartition(_SEPARATOR)[2]


_SEPARATOR = "\0"   # before each reproducer in a journal; a script's text holds none


RAN = "ran"   # a finished test that neither timed out nor crashed


def given_up(config, state: SharedState) -> dict[str, str]:
    """Engine name -> why it is given up (its remaining tests' skip reason says `not run: ` and
    this): its last N finished tests were all faults, and so were at least half of them all."""
    limit = config.getoption("unresponsive_after")
    if limit <= 0:
        return {}
    reasons = {}
    for engine, kinds in state.finished().items():
        faults = Counter(kind for kind in kinds if kind != RAN)
        if len(kinds) >= limit and RAN not in kinds[-limit:] and 2 * faults.total() >= len(kinds):
            counts = " and ".join(f"{n} {kind}" for kind, n in sorted(faults.items()))
            reasons[engine] = (f"engine {engine!r} is unresponsive: its last {limit} "
                               f"tests in a row and {faults.total()} of its {len(kinds)} tests so "
                               f"far hung or crashed ({counts}); --unresponsive-after {limit} sets "
                               f"how many in a row give an engine up, 0 never")
    return reasons


class Journal:
    """A script listener that keeps each step's script in this worker's journal, in case the
    engine takes the process down."""

    def __init__(self, state: SharedState, nodeid: str):
        self.state = state
        self.nodeid = nodeid

    def script_started(self, script: Script) -> None:
        pass

    def step_recorded(self, script: Script) -> None:
        self.state.journal(self.nodeid, script.text())


# -- in the process that runs the tests (a worker, or the only process with -n 0) -----------------
def _state(config) -> SharedState | None:
    watchdog = config.pluginmanager.get_plugin(_WATCHDOG)
    return watchdog.state if watchdog is not None else config.stash.get(_SHARED, None)


def journaled_tests(config) -> list[str]:
    """The test each process of the run last started, by its journal (for the report of an
    interrupted run: a test stopped in its setup has no report)."""
    state = _state(config)
    if state is None:
        return []
    return [state.read_journal(path.name.removeprefix("journal-"))[0]
            for path in sorted(state.directory.glob("journal-*"))]


def shared_directory(config) -> Path | None:
    """The directory every process of the run shares (None outside a conformance run)."""
    state = _state(config)
    return state.directory if state is not None else None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Skip the tests of an engine the run has given up on."""
    engine, state = item_engine(item), _state(item.config)
    if engine is None or state is None:
        return
    reason = given_up(item.config, state).get(engine.name)
    if reason is not None:
        skipped = f"not run: {reason}"
        item.user_properties.append((NOT_RUN, skipped))
        pytest.skip(skipped)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    state = _state(item.config)
    if item_engine(item) is None or state is None:
        return (yield)
    state.journal(item.nodeid)
    with listening(Journal(state, item.nodeid)):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Record each finished test of an engine before the next one starts: a test stopped by the
    time limit as a fault, unless it is a known gap of the baseline, whose failure (slow ones run
    past the limit) is expected."""
    report = yield
    engine, state = item_engine(item), _state(item.config)
    if engine is not None and state is not None and call.when == "call":
        timed_out = call.excinfo is not None and call.excinfo.errisinstance(TimeLimitExceeded)
        state.record(engine.name, "timed out" if timed_out and excuse_of(item) is None else RAN)
        if timed_out:
            report.user_properties.append((HUNG, True))   # the engine hung on this program
    return report


# -- in the controller --------------------------------------------------------------------------
class Watchdog:
    """Shares the state directory with the workers, counts crashes as faults (a dead worker cannot),
    and turns SIGTERM into an interruption."""

    def __init__(self, config, directory: Path):
        self.config = config
        self.state = SharedState(directory)
        self.unresponsive: dict[str, str] = {}      # engine name -> why it was given up
        self._previous_sigterm = signal.signal(signal.SIGTERM, self._terminate)

    @staticmethod
    def _terminate(signum, frame):
        raise Terminated("SIGTERM")

    def pytest_configure_node(self, node):
        node.workerinput[_STATE_DIR] = str(self.state.directory)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config, log):
        """xdist's load scheduling, made to survive two workers dying at once (see below)."""
        if config.getvalue("dist") == "load":
            return _survivor_scheduling()(config, log)
        return None

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem, report, sched):
        """xdist's report of a test whose worker died: a fault of its engine, with the engine's
        name and the reproducer the worker journaled (the report carries no other metadata)."""
        engine = _engine_of(self.config, crashitem)
        if engine is not None:
            self.state.record(engine, "crashed")
        nodeid, reproducer = self.state.read_journal(report.node.gateway.id)
        attach_crash(report, engine, reproducer if nodeid == crashitem else "")

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session):
        """An engine given up on has not conformed: the run fails even if its faults were known
        gaps."""
        self.unresponsive = given_up(self.config, self.state)
        if self.unresponsive and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_unconfigure(self, config):
        signal.signal(signal.SIGTERM, self._previous_sigterm)
        shutil.rmtree(self.state.directory, ignore_errors=True)


def _survivor_scheduling():
    """xdist's LoadScheduling, except that a worker found dead while tests are sent to it is left
    for its own "node down" event. When two workers die at once (an engine that ends the
    interpreter, run on two workers), xdist handles the first death by sending the first worker's
    tests to the second, and that send raises OSError, which ends the whole run with an
    INTERNALERROR. The tests stay assigned to the dead worker; when its death is handled, the first
    of them is its crashed test and the rest go back to be scheduled, as for any crashed worker."""
    from xdist.scheduler import LoadScheduling

    class SurvivorScheduling(LoadScheduling):
        def _send_tests(self, node, num):
            try:
                super()._send_tests(node, num)
            except OSError:
                pass   # the worker died: its "node down" event reschedules what it held

    return SurvivorScheduling


def _engine_of(config, nodeid: str) -> str | None:
    """The engine of a test id whose report carries no metadata (a crashed worker's)."""
    names = [engine.name for engine in selected_engines(config)]
    return next((name for name in names if nodeid.endswith(f"[{name}]")
                 or nodeid.endswith(f"-{name}]")), None)


def unresponsive_engines(config) -> dict[str, str]:
    """Engine name -> why it was given up, for the report."""
    watchdog = config.pluginmanager.get_plugin(_WATCHDOG)
    return dict(watchdog.unresponsive) if watchdog is not None else {}
