"""Running the suites against mutants: one pytest session, a forked child per run.

Starting pytest (its plugins, the suite modules' imports, collection) took about 1-1.5 s of each
mutant's run, as long as its tests. So `run` starts one pytest session in this process, which
collects every suite test once and then, instead of running them, forks a child for each run:
the control, then each mutant. The child installs its mutant into the reference engine it
inherited, runs its tests in order until the first failure and exits; this process never runs
a test or a mutated function, so no mutant reaches another run.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest

from tools.mutation import executed
from tools.mutation.cache import Cache, Plan
from tools.mutation.mutants import MUTANT_VARIABLE, Mutant, install
from tools.mutation.results import load_equivalent
from tools.mutation.targets import PACKAGE, ROOT, tangent_line

SUITES = "suites"
ENGINE = "tools.mutation.engine"  # one engine name for the control and every mutant
CONTROL_TIMEOUT = 900  # seconds: the control runs every test, on a machine that may be busy
TANGENT_LINE = tangent_line()  # see `covering_tests`


def run(mutants: list[Mutant], args, cache: Cache) -> tuple | None:
    """Judge `mutants` with the options of `python -m tools.mutation run` (`args`), in one session
    of the suites started from the checkout root, reusing what `cache` still holds and storing
    the new verdicts there: (the control's result, whether it traced coverage, a row per mutant,
    the mutants' wall time in seconds), or None where the suites do not collect or do not pass
    on the unmutated engine. The control always runs: only it says that the suites still pass
    and which tests now reach each mutant."""

    def work(items: dict):
        """In the session, once the suites are collected: the control, then the mutants."""
        cache.begin(executed.RAN)  # what the session executed: every run inherits it
        control, coverage = _control(args, items, cache)
        print("control skipped" if args.no_control else
              f"control (unmutated engine): {control['outcome']} in {control['seconds']:.1f}s"
              f" ({control['ran']} of {len(items)} tests run, the others' outcomes stored)",
              flush=True)
        if control["outcome"] != "survived":
            print("the suites do not pass on the unmutated engine; no mutant can be judged:\n"
                  + control.get("tail", ""))
            return None
        started = time.perf_counter()
        rows = run_all(mutants, args, items, coverage, cache)
        return control, coverage is not None, rows, time.perf_counter() - started

    collected = Collected(work)
    for name in ("AUTOGRAD_ENGINE", "PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS",
                 "PYTEST_XDIST_TESTRUNUID", MUTANT_VARIABLE):
        os.environ.pop(name, None)
    # a test that runs the engine in a process of its own imports it from the checkout there too
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    executed.record()  # before pytest.main imports the engine
    pytest.main(pytest_args(args.test_timeout, args.keyword), plugins=[collected])
    return collected.result


def _control(args, items: dict, cache: Cache) -> tuple[dict, dict | None]:
    """The unmutated engine's run of every test whose stored outcome no longer holds (split
    among `--jobs` children), and the lines of reference/ each test executed, stored or traced
    now (None: not traced; then every test runs and nothing is stored)."""
    if args.no_control:
        return {"outcome": "survived", "seconds": 0.0, "ran": 0}, None
    trace = not args.no_coverage
    plan = cache.plan(None, list(items), items) if trace else Plan(run=list(items))
    parts = [(None, plan.run[part::args.jobs]) for part in range(args.jobs) if plan.run]
    results = schedule(parts, lambda mutant, tests: Child(items, mutant, tests, trace),
                       args.jobs, max(args.timeout, CONTROL_TIMEOUT))
    control = next((result for result in results if result["outcome"] != "survived"),
                   {"outcome": "survived", "returncode": 0, "killed_by": None,
                    "seconds": max((r["seconds"] for r in results), default=0.0)})
    tests = [test for result in results for test in result.get("tests", ())]
    control["ran"] = len(tests)
    if not trace:
        return control, None
    if control["outcome"] == "survived":
        cache.store(None, control, plan.kept, tests)
    coverage = {nodeid: {"seconds": test["seconds"], "lines": test["lines"]}
                for nodeid, test in [*plan.kept.items(), *((t["nodeid"], t) for t in tests)]}
    return control, coverage


def run_all(mutants: list[Mutant], args, items: dict, coverage: dict | None,
            cache: Cache) -> list[dict]:
    """Judge every mutant: the ones no test of the control reached are `uncovered`, those whose
    stored verdict still holds are reused (`cached`), the others run the tests that reached them
    (every suite test without coverage), in a seeded random order so that a run cut short by
    `--budget` still samples every file; rows in generation order."""
    tests = {mutant.id: covering_tests(mutant, coverage) if coverage is not None else list(items)
             for mutant in mutants}
    equivalent = load_equivalent()
    known = {mutant.id: {"outcome": "uncovered", "seconds": 0.0, "returncode": None,
                         "killed_by": None}
             for mutant in mutants if not tests[mutant.id]}
    plans = {}
    for mutant in mutants:
        if mutant.id not in known:
            plans[mutant.id] = cache.plan(mutant, tests[mutant.id], items,
                                          mutant.id in equivalent)
            if plans[mutant.id].verdict:
                known[mutant.id] = {**plans[mutant.id].verdict, "cached": True}
    order = [mutant for mutant in mutants if mutant.id not in known]
    print(f"{len(mutants) - len(order)} of {len(mutants)} mutants need no run "
          f"({sum('cached' in result for result in known.values())} reused from {cache.path}, "
          f"{sum('listed' in result for result in known.values())} of them listed equivalent); "
          f"the others run {sum(len(plans[mutant.id].run) for mutant in order)} tests at most",
          flush=True)
    random.Random(args.seed).shuffle(order)
    deadline = time.monotonic() + 60 * args.budget if args.budget else None
    killers, done = Killers(), Counter()

    def report(mutant, result):
        killers.record(mutant, result)
        cache.store(mutant, result, plans[mutant.id].kept, result.pop("tests", []))
        done["n"] += 1
        print(f"[{done['n']}/{len(order)}] {result['outcome']:<8} {result['seconds']:6.1f}s "
              f"{mutant.id} ({len(tests[mutant.id])} tests)", flush=True)

    results = schedule([(mutant, lambda mutant: killers.order(mutant, plans[mutant.id].run,
                                                                 plans[mutant.id].stale))
                        for mutant in order],
                       lambda mutant, chosen: Child(items, mutant, chosen), args.jobs,
                       args.timeout, deadline, report)
    cache.save()
    by_id = {**known, **{mutant.id: result for mutant, result in zip(order, results)}}
    return [_row(mutant, by_id[mutant.id], len(tests[mutant.id])) for mutant in mutants]


def _row(mutant: Mutant, result: dict, tests: int) -> dict:
    row = {"id": mutant.id, "site": mutant.site, "function": f"{mutant.file}:{mutant.qualname}",
           "operator": mutant.operator, "diff": mutant.diff, "lines": list(mutant.lines),
           "tests": tests}
    row.update(result)
    return row


def pytest_args(test_timeout: float, keyword: str | None = None) -> list[str]:
    """The session's command line: shrinking off (the probe plugin: a kill needs a failure, not
    the smallest one), a hung test failed by the harness's own time limit, asserts not rewritten
    (only outcomes count), output not captured (each run writes its own log), no conformance
    summary (the session itself runs no test); `keyword`: pytest's -k, to run only some tests."""
    return [SUITES, "--engine", ENGINE, "--hypothesis-profile", "ci", "-q", "-s",
            "-p", "no:cacheprovider", "-n", "0", "--assert=plain", "--no-report",
            "--no-set-aside", "--unresponsive-after", "0",
            "-p", "no:autograd-conformance-report", "-p", "tests.support.probe",
            "--test-timeout", f"{test_timeout:g}", *(["-k", keyword] if keyword else [])]


class Collected:
    """pytest plugin: once the suites are collected, hand the items ({node ID: item}) to `work`
    instead of running them; what `work` returns is kept in `result`."""

    def __init__(self, work):
        self.work, self.result = work, None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        if session.testsfailed:
            raise session.Interrupted(f"{session.testsfailed} errors during collection")
        self.result = self.work({item.nodeid: item for item in session.items})
        return True


class Child:
    """One run (a mutant, or None: the control) of `tests` (node IDs, in order) in a child forked
    from the collecting session: it installs the mutant, runs the tests until the first failure,
    and writes what each test did as it ends (its outcome and the functions of reference/ it
    executed, for the cache; with `trace`, also how long it took and the lines of reference/ it
    executed: the control's coverage). Its output goes to a log file, so that polling never
    blocks."""

    def __init__(self, items: dict, mutant: Mutant | None, tests: list[str],
                 trace: bool = False):
        self.mutant = mutant
        self.scratch = tempfile.TemporaryDirectory(prefix="mutant-")
        directory = Path(self.scratch.name)
        self.log, self.tests = directory / "log", directory / "tests.jsonl"
        sys.stdout.flush()
        sys.stderr.flush()
        self.started = time.perf_counter()
        self.pid = os.fork()
        if self.pid == 0:  # the child never returns into the parent's code, whatever happens
            code = 3
            try:
                self._run([items[nodeid] for nodeid in tests], trace, directory)
                code = 0
            except BaseException:  # noqa: BLE001 - reported in the log, judged an error
                import traceback
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)

    def _run(self, items: list, trace: bool, directory: Path) -> None:
        os.setpgrp()  # a time-out kills the processes its tests started too
        descriptor = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(descriptor, 1)
        os.dup2(descriptor, 2)
        if self.mutant is not None:
            install(self.mutant)
            # for a test that starts the engine in a new process (tools/mutation/engine.py)
            os.environ[MUTANT_VARIABLE] = self.mutant.id
        outcomes = _Outcomes()
        if items:
            items[0].config.pluginmanager.register(outcomes)
        with open(self.tests, "w") as written:
            for index, item in enumerate(items):
                following = items[index + 1] if index + 1 < len(items) else None
                fresh = directory / f"ran-{index}"  # a fresh_process test's own process
                os.environ[executed.RAN_FILE] = str(fresh)
                executed.RAN.clear()  # what the session ran counts for every test (Cache.begin)
                with outcomes.traced(item) if trace else contextlib.nullcontext():
                    item.ihook.pytest_runtest_protocol(item=item, nextitem=following)
                test = {"nodeid": item.nodeid, "outcome": outcomes.outcome(item),
                        "functions": sorted(executed.RAN | executed.read_ran_file(fresh))}
                written.write(json.dumps({**test, **outcomes.tests.get(item.nodeid, {})}) + "\n")
                written.flush()
                if test["outcome"] != "passed":
                    break

    def poll(self) -> int | None:
        """The exit code once the run has ended, else None."""
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        return os.waitstatus_to_exitcode(status) if pid else None

    def stop(self) -> None:
        """End the run (a time-out), and whatever processes it started."""
        os.killpg(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)

    def result(self, returncode: int | None) -> dict:
        """What happened: killed (a test failed), timeout (the run or a test ran out of time: a
        hang, counted as killed), survived (every test passed), or error (the run broke off);
        "tests": what each test that ended did (see the class)."""
        seconds = time.perf_counter() - self.started
        output = self.log.read_text(errors="replace") if self.log.exists() else ""
        tests = ([json.loads(line) for line in self.tests.read_text().splitlines()]
                 if self.tests.exists() else [])
        self.scratch.cleanup()
        failed = next((test for test in tests if test["outcome"] != "passed"), None)
        if returncode is None or failed and failed["outcome"] == "timeout":
            outcome = "timeout"
        elif returncode == 0:
            outcome = "killed" if failed else "survived"
        else:
            outcome = "error"
        result = {"outcome": outcome, "seconds": round(seconds, 2), "returncode": returncode,
                  "killed_by": failed["nodeid"] if failed else None, "tests": tests}
        if outcome in ("error", "survived") or self.mutant is None:
            result["tail"] = "\n".join(output.splitlines()[-12:])
        return result


class _Outcomes:
    """pytest plugin of a child: the outcome of each test it ran, and (with `traced`) which
    lines of reference/ each test executed, as {node ID: {"seconds": s, "lines": {file under
    reference/: [line, ...]}}}: the control's coverage (see `covering_tests`); `"lines": null`
    for a test marked `fresh_process`, which runs the engine in a process of its own too."""

    def __init__(self):
        self.failed: dict[str, str] = {}
        self.tests: dict[str, dict] = {}
        self.lines: dict[str, set] = {}

    def pytest_runtest_logreport(self, report):
        if report.failed and report.nodeid not in self.failed:
            timeout = "TimeLimitExceeded" in report.longreprtext
            self.failed[report.nodeid] = "timeout" if timeout else "failed"

    def outcome(self, item) -> str:
        """passed (or skipped), failed, or timeout: the harness's time limit stopped it."""
        return self.failed.get(item.nodeid, "passed")

    @contextlib.contextmanager
    def traced(self, item):
        """Run `item` inside this, recording the lines of reference/ it executes."""
        prefix = os.path.dirname(importlib.import_module(PACKAGE).__file__) + os.sep
        self.lines, started = {}, time.perf_counter()

        def line(frame, event, arg):
            if event == "line":
                self.lines.setdefault(frame.f_code.co_filename, set()).add(frame.f_lineno)
            return line

        sys.settrace(lambda frame, event, arg:
                     line if frame.f_code.co_filename.startswith(prefix) else None)
        try:
            yield
        finally:
            sys.settrace(None)
        self.tests[item.nodeid] = {
            "seconds": round(time.perf_counter() - started, 3),
            "lines": None if item.get_closest_marker("fresh_process") else
            {name[len(prefix):]: sorted(lines) for name, lines in self.lines.items()}}


def covering_tests(mutant: Mutant, coverage: dict) -> list[str]:
    """The tests that executed the mutant's site in the control run, quickest first. Only they
    can fail on it: under the derandomized `ci` profile a test that never reaches the site draws
    and computes exactly what it did in the control, and passes. A mutant no test reaches is
    reported `uncovered` (a survivor) without running it."""
    first, last = mutant.lines
    forward = mutant.area == "forward"
    reaching = [(test["seconds"], nodeid) for nodeid, test in coverage.items()
                if test["lines"] is None
                or any(first <= number <= last for number in test["lines"].get(mutant.file, ()))
                and not (forward and TANGENT_LINE not in test["lines"].get("dual.py", ()))]
    return [nodeid for _, nodeid in sorted(reaching)]


class Killers:
    """Which tests have killed mutants of each function so far in a run. A mutant runs those
    first (the most kills first, then the rest quickest first): mutants of one function mostly
    fall to the same few tests, and `-x` stops a killed mutant at its first failing test. The
    order changes how long a run takes, not its outcome: a survivor runs every covering test."""

    def __init__(self):
        self.kills: Counter = Counter()

    def order(self, mutant: Mutant, tests: list[str], first: str | None = None) -> list[str]:
        """`tests` in the order to run them; `first` (the test that killed the mutant in a
        stored run) before any other."""
        function = (mutant.file, mutant.qualname)
        return sorted(tests, key=lambda nodeid: (nodeid != first, -self.kills[function, nodeid]))

    def record(self, mutant: Mutant, result: dict) -> None:
        if result["killed_by"]:
            self.kills[(mutant.file, mutant.qualname), result["killed_by"]] += 1


def schedule(runs: list[tuple], start, jobs: int, timeout: float, deadline: float | None = None,
             report=None) -> list[dict]:
    """Judge the (mutant, tests) pairs `jobs` at a time: `start(mutant, tests)` forks the run (a
    Child), from this one thread (forking is only safe from a single-threaded process); a run
    past `timeout` seconds is stopped (a timeout), and none starts after `deadline`
    (time.monotonic()): those are `not run`. `tests` may be a function of the mutant, asked when
    its run starts (see Killers)."""
    waiting, running, results = list(enumerate(runs)), {}, {}
    while waiting or running:
        while waiting and len(running) < jobs:
            index, (mutant, tests) = waiting.pop(0)
            if deadline and time.monotonic() > deadline:
                results[index] = {"outcome": "not run", "seconds": 0.0, "returncode": None,
                                  "killed_by": None}
                continue
            running[index] = start(mutant, tests(mutant) if callable(tests) else tests)
        for index, child in list(running.items()):
            returncode = child.poll()
            late = time.perf_counter() - child.started > timeout
            if returncode is None and not late:
                continue
            if returncode is None:
                child.stop()
            results[index] = child.result(returncode)
            del running[index]
            if report:
                report(runs[index][0], results[index])
        time.sleep(0.02)
    return [results[index] for index in range(len(runs))]
