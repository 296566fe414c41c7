"""Incremental runs: what each test did in each run (the control's and every mutant's) is stored
with a fingerprint of everything that decided it, and a later run reuses each stored test outcome
while its fingerprint is unchanged, so that it runs only the tests a change can affect (as
mutmut 3 does, at the grain of one test). The stored outcomes live in .mutation-cache/results.json
(git-ignored); `run --fresh` reuses none of them but stores this run's.

A test's outcome is a function of what it executes: the `ci` hypothesis profile is derandomized
and the suites' tests are isolated (a test leaves no state behind for the next one, which the
project's own tests check: tests/test_isolation.py), so one test, run under the same mutant,
executing the same code, gives the same outcome in any run and in any order. So a stored test
outcome's fingerprint covers
  - the run: the mutant (its ID, its mutated def, its function's source before mutation) or the
    control;
  - the test: its node ID, the source of its module (suites/test_*.py) and its entry in
    suites/names.toml (which may skip it);
  - the reference engine as that test executed it: the source of every function of reference/ it
    called (`executed`: recorded in the run itself, so a path that only the mutant takes counts
    too, in a `fresh_process` test's own process too), of what the session executed before any
    test (imports, collection), and the rest of reference/ (imports, constants, signatures, class
    attributes, and every function that keeps state from one call to the next: a cache, a
    global it writes; see `executed.reference_sources`);
  - the harness: every other file the session loads to run a test (autograd_conformance/,
    suites/__init__.py, tests/support/, conftest.py, pyproject.toml, tox.ini, and the files of
    this tool that make a mutant, instrument the engine or run the tests), the versions of Python
    and of the libraries the suites use, and the options that change an outcome (-k,
    --test-timeout, --timeout). A change to any of them invalidates everything. The catalog,
    seeds and deviations (suites/*.toml but names.toml), tools/mutation/equivalent.txt and this
    tool's bookkeeping (this file, results.py, the command line) decide no outcome: a change there
    invalidates nothing.
A mutant's verdict follows from its stored outcomes that still hold (`Cache.plan`): killed (or a
timeout) if one of them failed; survived if every test that now covers its site passed; otherwise
its run is the covering tests without a stored pass, its stale killer first. A mutant listed as
equivalent that survived keeps that verdict while its own function is unchanged: its run could
only show the list wrong (a kill, which raises the score), never a survivor that the score
misses, and re-running those few survivors after a change to a widely used function took most
of an incremental run's time. The control runs the tests without a stored pass too, and the
stored coverage of the others stands. Not covered:
anything else a test reads (the machine, environment variables); and a test's timeout is stored
like a failure although a slower machine could time out where this one did not. A run stopped as
a whole (`--timeout`) keeps the outcomes of the tests it finished; errors are never stored.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from autograd_conformance.runner.needs import key_of, recorded_needs
from tools.mutation import executed
from tools.mutation.mutants import ENGINE_NAME, Mutant
from tools.mutation.targets import ROOT

CACHE_FILE = ROOT / ".mutation-cache" / "results.json"
VERSION = 2  # of the stored format and of what a fingerprint covers
HARNESS = ("autograd_conformance/**/*.py", "autograd_conformance/**/*.ini", "suites/__init__.py",
           "tests/__init__.py", "tests/support/**/*.py", "conftest.py", "pyproject.toml",
           "tox.ini", "tools/__init__.py", *(f"tools/mutation/{name}.py" for name in (
               "engine", "executed", "mutants", "operators", "targets", "runner")))
LIBRARIES = ("numpy", "hypothesis", "pytest", "torch")
CONTROL = "control"  # the key of the control's stored outcomes
FAILED = ("failed", "timeout")  # a test's outcomes that kill a mutant


@functools.lru_cache(maxsize=1)
def _harness_files() -> str:
    paths = sorted({path for pattern in HARNESS for path in ROOT.glob(pattern) if path.is_file()})
    return executed.digest([(path.relative_to(ROOT).as_posix(), path.read_bytes())
                            for path in paths])


def harness(args) -> str:
    """The digest of the harness, the library versions and the options (see the module)."""
    versions = []
    for name in LIBRARIES:
        try:
            versions.append((name, importlib.metadata.version(name)))
        except importlib.metadata.PackageNotFoundError:
            versions.append((name, None))
    return executed.digest(VERSION, _harness_files(), sys.version, versions, args.keyword,
                           args.test_timeout, args.timeout)


@functools.lru_cache(maxsize=None)
def _module(path: str) -> str | None:
    file = ROOT / path
    return executed.digest(file.read_bytes()) if file.is_file() else None


def _names_entry(nodeid: str):
    entry = recorded_needs().get(key_of(nodeid, ENGINE_NAME))
    return None if entry is None else (entry.needs, entry.names, entry.ops)


def _run_key(mutant: Mutant | None):
    if mutant is None:
        return CONTROL
    return (mutant.id, mutant.source,
            executed.reference_sources()[0].get(f"{mutant.file}:{mutant.qualname}"))


@dataclass
class Plan:
    """What a run's stored outcomes say: `verdict` where they decide it (reused), else the tests
    to run (`run`; `stale`: the one that killed the mutant last time, if it is to run) and the
    stored outcomes that still hold (`kept`)."""

    verdict: dict | None = None
    run: list[str] = field(default_factory=list)
    kept: dict = field(default_factory=dict)
    stale: str | None = None


class Cache:
    """The stored test outcomes of a checkout (`path`), read at the start of a run and written at
    its end. `fresh`: reuse nothing, but store this run's outcomes. `begin` must be called once
    the session has collected the suites, before `plan` or `store`."""

    def __init__(self, path: Path, harness_digest: str, fresh: bool = False):
        self.path, self.harness = path, harness_digest
        stored = {} if fresh or not path.exists() else json.loads(path.read_text())
        self.runs: dict = _expand(stored) if stored.get("version") == VERSION else {}

    def begin(self, session_functions) -> None:
        """Add the reference functions the session executed before any test (every test's run
        inherits what they did) to every fingerprint."""
        self.harness = executed.digest(self.harness, executed.functions_digest(session_functions))

    def _digest(self, run_key, nodeid: str, functions) -> str:
        return executed.digest(self.harness, run_key, nodeid, _module(nodeid.partition("::")[0]),
                               _names_entry(nodeid), executed.functions_digest(functions))

    def plan(self, mutant: Mutant | None, tests: list[str], collected,
             equivalent: bool = False) -> Plan:
        """How to judge `mutant` (None: the control) whose covering tests are now `tests`, with
        the suites' test IDs `collected`; `equivalent`: the mutant is listed as equivalent (see
        the module)."""
        entry = self.runs.get(mutant.id if mutant else CONTROL)
        if entry is None:
            return Plan(run=list(tests))
        key = _run_key(mutant)
        if equivalent and entry["outcome"] == "survived" and entry["key"] == executed.digest(key):
            return Plan(verdict={"outcome": "survived", "seconds": entry["seconds"],
                                 "returncode": 0, "killed_by": None, "listed": True})
        kept = {nodeid: test for nodeid, test in entry["tests"].items()
                if nodeid in collected and test["digest"] == self._digest(key, nodeid,
                                                                          test["functions"])}
        failed = [nodeid for nodeid, test in kept.items() if test["outcome"] in FAILED]
        if failed:
            killer = entry["killed_by"] if entry["killed_by"] in failed else failed[0]
            outcome = "timeout" if kept[killer]["outcome"] == "timeout" else "killed"
            return Plan(verdict={"outcome": outcome, "seconds": entry["seconds"], "returncode": 0,
                                 "killed_by": killer}, kept=kept)
        run = [nodeid for nodeid in tests if nodeid not in kept]
        if not run:
            return Plan(verdict={"outcome": "survived", "seconds": entry["seconds"],
                                 "returncode": 0, "killed_by": None}, kept=kept)
        return Plan(run=run, kept=kept,
                    stale=entry["killed_by"] if entry["killed_by"] in run else None)

    def store(self, mutant: Mutant | None, result: dict, kept: dict, tests: list[dict]) -> None:
        """Keep the outcomes of a run (`tests`: what each test it ran did, with the functions of
        reference/ it executed) with those of `kept` (the plan's), under fingerprints; a run that
        broke off (an error) keeps nothing new."""
        if result["outcome"] == "error":
            return
        key = _run_key(mutant)
        outcomes = dict(kept)
        for test in tests:
            outcomes[test["nodeid"]] = {
                **{name: value for name, value in test.items() if name != "nodeid"},
                "digest": self._digest(key, test["nodeid"], test["functions"])}
        self.runs[mutant.id if mutant else CONTROL] = {
            **{name: result[name] for name in ("outcome", "seconds", "killed_by")},
            "key": executed.digest(key), "tests": outcomes}

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(_compact(self.runs)) + "\n")


def _compact(runs: dict) -> dict:
    """The stored form: each function name once, in a table, and by its index in the tests."""
    names = sorted({name for run in runs.values() for test in run["tests"].values()
                    for name in test["functions"]})
    index = {name: number for number, name in enumerate(names)}
    return {"version": VERSION, "functions": names, "runs": {
        key: {**run, "tests": {nodeid: {**test, "functions": [index[name] for name in
                                                              test["functions"]]}
                               for nodeid, test in run["tests"].items()}}
        for key, run in runs.items()}}


def _expand(stored: dict) -> dict:
    names = stored["functions"]
    return {key: {**run, "tests": {nodeid: {**test, "functions": [names[number] for number in
                                                                  test["functions"]]}
                                   for nodeid, test in run["tests"].items()}}
            for key, run in stored["runs"].items()}
