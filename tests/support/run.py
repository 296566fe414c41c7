"""Run the conformance suites in a subprocess, as a user would, and read back what happened: the one
runner of the project's tests and scripts. `run_pytest` runs any pytest command line (the report,
baseline and robustness tests); `run_suites` runs one engine's selected behaviours with the probe
plugin (the broken-engine tests, tools/kill_rate.py). Each run is a fresh process (forked from a warm
interpreter, see `warm.py`), so a mutant's process-local patches never reach another run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from autograd_conformance.suites import tests_by_behaviour
from tests.support.warm import ROOT, clean_environment, run_python


@dataclass
class Run:
    engine: str
    behaviours: tuple[str, ...]
    returncode: int
    records: list[dict]
    output: str
    seconds: float
    command: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[dict]:
        return [record for record in self.records if record["outcome"] == "failed"]

    def failed_for(self, behaviour: str) -> list[dict]:
        return [record for record in self.failed if behaviour in record["behaviours"]]

    def examples_to_fail(self, behaviour: str | None = None) -> int | None:
        """Fewest examples hypothesis needed to hit a failure (of `behaviour`, if given)."""
        found = [record["first_failure"] for record in
                 (self.failed_for(behaviour) if behaviour else self.failed)
                 if record["first_failure"] is not None]
        return min(found) if found else None

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.output.splitlines()[-lines:])


def pytest_command(engine: str, behaviours=(), *, profile: str = "ci", stop_first: bool = True,
                   set_aside: bool = False, extra=()) -> list[str]:
    # -n 0: the probe counts examples in the process that runs the tests, and no mutant crashes.
    # --assert=plain: a failure is a failure without pytest's rewritten asserts, whose rewriting of
    # the harness and plugins cost each run about 0.7 s where bytecode is not cached.
    # Only the suite modules that hold the behaviours' tests: collecting every module would cost
    # each run about 0.6 s.
    # --no-set-aside unless asked: a kill shows that the tests of each behaviour a mutant breaks
    # catch it, and judging the op set first would cost each run about 2 s
    # (tests/test_broken_engines.py kills the op mutants with their ops set aside too).
    files = sorted({f"suites/{file}" for behaviour in behaviours
                    for file, _ in tests_by_behaviour().get(behaviour, ())}) or ["suites"]
    command = [sys.executable, "-m", "pytest", *files, "--engine", engine, "-q", "-rf",
               "-p", "no:cacheprovider", "-p", "tests.support.probe", "-n", "0", "--assert=plain",
               "--hypothesis-profile", profile, "--no-report"]
    for behaviour in behaviours:
        command += ["--behaviour", behaviour]
    if stop_first:
        command.append("-x")
    if not set_aside:
        command.append("--no-set-aside")
    return command + list(extra)


def run_pytest(*args: str, timeout: float = 600, env: dict[str, str] | None = None,
               cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """`python -m pytest <args>` from `cwd` (the project root unless given) with the `ci` profile;
    output captured."""
    return run_python(["-m", "pytest", "-p", "no:cacheprovider", "--hypothesis-profile", "ci",
                       *args], cwd=cwd, timeout=timeout, env=clean_environment(env))


def run_suites(engine: str, behaviours=(), *, profile: str = "ci", stop_first: bool = True,
               set_aside: bool = False, extra=(), timeout: float = 600) -> Run:
    """`pytest suites --engine ENGINE --behaviour ID...` in a subprocess with the probe plugin."""
    command = pytest_command(engine, behaviours, profile=profile, stop_first=stop_first,
                             set_aside=set_aside, extra=extra)
    with tempfile.TemporaryDirectory() as scratch:
        probe = Path(scratch) / "probe.json"
        started = time.perf_counter()
        completed = run_python(command[1:], cwd=ROOT, timeout=timeout,
                               env=clean_environment({"BROKEN_PROBE_OUT": str(probe)}))
        seconds = time.perf_counter() - started
        records = json.loads(probe.read_text()) if probe.exists() else []
    return Run(engine, tuple(behaviours), completed.returncode, records,
               completed.stdout + completed.stderr, seconds, command)
