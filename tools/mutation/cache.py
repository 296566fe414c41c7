"""Incremental runs: each mutant's verdict is stored with a fingerprint of everything that decided
it, and a later run reuses it while the fingerprint is unchanged (as mutmut 3 does, at finer
grain). The stored results live in .mutation-cache/results.json (git-ignored); `run --fresh`
ignores them and runs every mutant.

A run is deterministic (the `ci` hypothesis profile is derandomized): the same tests, in the same
order, executing the same code, give the same outcome. So a verdict's fingerprint covers
  - the mutant: its ID, its mutated def, and its function's source as it was before mutation;
  - the tests its run ran (every covering test for a survivor, those up to the failing one for a
    killed mutant): their node IDs and the source of their modules (suites/test_*.py);
  - the reference engine as that run executed it: the source of every function of reference/
    the run called (`executed`: recorded in the run itself, so a path that only the mutant takes
    counts too; in a `fresh_process` test's process too), and the rest of reference/ (imports,
    constants, signatures, class attributes: a change there invalidates everything);
  - the harness: every other file the session loads (autograd_conformance/, suites/ but its test
    modules, tests/support/, tools/, conftest.py, pyproject.toml, tox.ini), the versions of
    Python and of the libraries the suites use, and the options that change a verdict (-k,
    --test-timeout, --timeout). A change to any of them invalidates everything.
Not covered: anything else a test reads (the machine, environment variables); and a timeout is
stored like a kill although a slower machine could time out where this one did not. A survivor
is reused only while the control's covering tests are among those it ran: a test that reaches its
site anew makes it run again. Errors and `not run` are never stored; uncovered mutants need no run.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import sys
from pathlib import Path

from tools.mutation import executed
from tools.mutation.mutants import Mutant
from tools.mutation.targets import ROOT

CACHE_FILE = ROOT / ".mutation-cache" / "results.json"
VERSION = 1  # of the stored format and of what a fingerprint covers
HARNESS = ("autograd_conformance/**/*.py", "autograd_conformance/**/*.ini", "suites/*.toml",
           "suites/**/*.py", "tests/__init__.py", "tests/support/**/*.py", "tools/**/*.py",
           "tools/mutation/equivalent.txt", "conftest.py", "pyproject.toml", "tox.ini")
LIBRARIES = ("numpy", "hypothesis", "pytest", "torch")
STORED = ("killed", "timeout", "survived")


@functools.lru_cache(maxsize=1)
def _harness_files() -> str:
    paths = sorted({path for pattern in HARNESS for path in ROOT.glob(pattern)
                    if path.is_file() and not (path.parent.name == "suites"
                                               and path.name.startswith("test_"))})
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


def fingerprint(harness_digest: str, mutant: Mutant, tests: list[str], functions) -> str:
    original = executed.reference_sources()[0].get(f"{mutant.file}:{mutant.qualname}")
    modules = [(nodeid, _module(nodeid.partition("::")[0])) for nodeid in tests]
    return executed.digest(harness_digest, mutant.id, mutant.source, original, modules,
                           executed.functions_digest(functions))


class Cache:
    """The stored verdicts of a checkout (`path`), read at the start of a run and written at its
    end. `fresh`: reuse nothing, but store this run's verdicts."""

    def __init__(self, path: Path, harness_digest: str, fresh: bool = False):
        self.path, self.harness = path, harness_digest
        stored = {} if fresh or not path.exists() else json.loads(path.read_text())
        self.entries: dict = stored.get("mutants", {}) if stored.get("version") == VERSION else {}

    def lookup(self, mutant: Mutant, tests: list[str], collected) -> dict | None:
        """The stored result of `mutant`, if it still holds when its covering tests are `tests`
        and the suites' test IDs `collected`; else None (run it)."""
        entry = self.entries.get(mutant.id)
        if entry is None or not set(entry["tests"]) <= set(collected):
            return None
        if entry["outcome"] == "survived" and not set(tests) <= set(entry["tests"]):
            return None
        if entry["digest"] != fingerprint(self.harness, mutant, entry["tests"],
                                          entry["functions"]):
            return None
        return {key: entry[key] for key in ("outcome", "seconds", "returncode", "killed_by")}

    def store(self, mutant: Mutant, result: dict, ran: dict | None) -> None:
        """Keep a judged run's verdict with its fingerprint (`ran`: the tests and the functions
        of reference/ the run executed, None where it did not say: nothing is stored)."""
        if result["outcome"] not in STORED or not ran:
            return
        self.entries[mutant.id] = {
            "digest": fingerprint(self.harness, mutant, ran["tests"], ran["functions"]),
            **{key: result[key] for key in ("outcome", "seconds", "returncode", "killed_by")},
            **ran}

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps({"version": VERSION, "mutants": self.entries}) + "\n")
