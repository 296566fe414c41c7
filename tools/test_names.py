"""Record the names of the adapter contract that each suite test uses, into suites/names.toml,
which the runner reads to skip a test whose names an adapter lacks (autograd_conformance/runner/
needs.py), and the ops of the op set that its own code applies, which the runner reads to judge
none of its behaviours where one of them is set aside and the test fails (runner/op_verdicts.py).

    python -m tools.test_names                    # record every test, write suites/names.toml
    python -m tools.test_names --check            # the same, compared with the file: 1 if stale
    python -m tools.test_names --check suites/test_custom_function.py  # record only those

It collects the suites (every test's key and the capabilities its marks name), then runs them on
the reference engine (`ci` profile, `-n 2`) with tools/names_recorder.py, which notes what the
tests' own code uses and runs each test on an engine that declares only the capabilities it needs.
A recorded name is kept when `lacking_names` can check it (the reference has it there:
`grad_fn.variable`, found only on AccumulateGrad, is not) and it is not a core name; a recorded
op unless it is one of REQUIRED_OPS, which are never set aside. The tool also lists kept names
that no capability a test needs lists in CONTRACT_NAMES, which tests/test_names.py requires to be
none. A full recording takes about as long as a conformance run of the reference engine (2.5
minutes on 2 cores); run it after changing what a suite test uses, its `needs` marks or core's
CONTRACT_NAMES. `--check` with files compares every test's key and needs but only those files'
names and ops: tests/test_names.py runs it on one file.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tomllib
from pathlib import Path

import pytest

from autograd_conformance import reference
from autograd_conformance.harness.contract import CONTRACT_NAMES, REQUIRED_OPS, lacking_names
from autograd_conformance.runner.needs import NAMES_FILE, key_of, needed_capabilities

ROOT = Path(__file__).resolve().parent.parent
ENGINE = "tools.names_recorder:torch"   # the reference engine, named "reference"
FIELDS = ("needs", "names", "ops")     # of each test's table, in order
HEADER = """\
# The names of the adapter contract that each suite test uses, keyed by test id without the
# engine parameter; `needs` are the capabilities its marks name. Written by
# `python -m tools.test_names` from a run of the suites on the reference engine: do not edit.
# A test whose names an adapter lacks is skipped, naming them
# (autograd_conformance/runner/needs.py). `ops` are the ops of the op set that its own code
# applies (not those of its programs): where one is set aside and the test fails, its behaviours
# are not judged (autograd_conformance/runner/op_verdicts.py).
"""


def _pytest(arguments: list[str], plugin) -> int:
    return pytest.main([*arguments, "--rootdir", str(ROOT), "-c", str(ROOT / "tox.ini"),
                        "--engine", ENGINE, "--hypothesis-profile", "ci", "--no-report", "-q",
                        "-p", "no:cacheprovider"], plugins=[plugin])


class Collected:
    """pytest plugin: the key and needs of every collected suite test."""

    def __init__(self):
        self.needs: dict[str, list[str]] = {}

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items):
        for item in items:
            key = key_of(item.nodeid, reference.name)
            self.needs[key] = sorted(set(needed_capabilities(item)))


def collect() -> dict[str, list[str]]:
    """Test key -> the capabilities its marks name, for every suite test."""
    collected = Collected()
    if _pytest([str(ROOT / "suites"), "--collect-only", "-q"], collected) != 0:
        raise RuntimeError("the suites do not collect")
    return collected.needs


class Recorded:
    """pytest plugin of the recording run's controller: each test's names and ops, from the user
    properties of its teardown report, and the tests that did not pass."""

    def __init__(self):
        self.used: dict[str, dict[str, list[str]]] = {}
        self.not_passed: dict[str, str] = {}

    def pytest_runtest_logreport(self, report):
        from tools.names_recorder import NAMES, OPS_APPLIED
        if report.outcome != "passed":
            self.not_passed[report.nodeid] = report.outcome
        if report.when == "teardown":
            properties = dict(report.user_properties)
            self.used[key_of(report.nodeid, reference.name)] = {
                "names": properties.get(NAMES, []), "ops": properties.get(OPS_APPLIED, [])}


def record(paths: list[str], jobs: int) -> dict[str, dict[str, list[str]]]:
    """Run the suite files `paths` on the recording engine: test key -> {"names": every name its
    code used, "ops": every op it applied}. Raises RuntimeError unless every test passed (what is
    recorded from it would be partial)."""
    recorded = Recorded()
    code = _pytest([*paths, "-p", "tools.names_recorder", "-n", str(jobs)], recorded)
    if code != 0 or recorded.not_passed:
        raise RuntimeError(f"the recording run did not pass (exit {code}): {recorded.not_passed}")
    return recorded.used


def checkable(names: set[str]) -> set[str]:
    """Those of `names` that `lacking_names` can check (the reference has them there) and core
    does not have."""
    return names - set(lacking_names(reference, sorted(names))) - set(CONTRACT_NAMES["core"])


def entries(needs: dict[str, list[str]], used: dict[str, dict]) -> dict[str, dict]:
    """Test key -> {"needs", "names", "ops"}, with only the checkable names and the ops that may be
    set aside, for the recorded tests."""
    kept = checkable({name for test in used.values() for name in test["names"]})
    return {key: {"needs": needs[key], "names": sorted(set(test["names"]) & kept),
                  "ops": sorted(set(test["ops"]) - set(REQUIRED_OPS))}
            for key, test in used.items()}


def unlisted(tests: dict[str, dict]) -> dict[str, list[str]]:
    """Test key -> the names it uses that no capability it needs lists in CONTRACT_NAMES."""
    found = {}
    for key, test in tests.items():
        listed = {name for capability in test["needs"] for name in CONTRACT_NAMES[capability]}
        missing = [name for name in test["names"] if name not in listed]
        if missing:
            found[key] = missing
    return found


def render(tests: dict[str, dict]) -> str:
    """names.toml's text: one table per test, in key order."""
    tables = [f"[{json.dumps(key)}]\n"
              + "".join(f"{field} = {json.dumps(test[field])}\n" for field in FIELDS)
              for key, test in sorted(tests.items())]
    return HEADER + "\n" + "\n".join(tables)


def stored() -> dict[str, dict]:
    return tomllib.loads(NAMES_FILE.read_text(encoding="utf-8"))


def differences(needs: dict[str, list[str]], tests: dict[str, dict],
                file: dict[str, dict]) -> list[str]:
    """How the file differs from the collected `needs` of every test and the recorded `tests`."""
    lines = [f"{key}: not in the file" for key in sorted(set(needs) - set(file))]
    lines += [f"{key}: in the file, but no such test" for key in sorted(set(file) - set(needs))]
    lines += [f"{key}: needs {needs[key]}, the file says {file[key]['needs']}"
              for key in sorted(set(needs) & set(file)) if file[key]["needs"] != needs[key]]
    lines += [f"{key}: {field} {test[field]}, the file says {file[key][field]}"
              for key, test in sorted(tests.items()) if key in file
              for field in ("names", "ops") if file[key][field] != test[field]]
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="suite files to record (default: all)")
    parser.add_argument("--check", action="store_true",
                        help="compare with suites/names.toml, write nothing; exit 1 if stale")
    parser.add_argument("-n", "--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if args.paths and not args.check:
        parser.error("only a check (--check) may record some files: the file holds every test")
    started = time.perf_counter()
    needs = collect()
    tests = entries(needs, record(args.paths or [str(ROOT / "suites")], args.jobs))
    print(f"recorded {len(tests)} of {len(needs)} tests in {time.perf_counter() - started:.0f} s")
    for key, names in unlisted(tests).items():
        print(f"{key} uses {', '.join(names)}: listed under no capability it needs "
              f"(CONTRACT_NAMES)")
    if args.check:
        stale = differences(needs, tests, stored())
        print("\n".join(stale) or f"{NAMES_FILE.name} is up to date")
        return int(bool(stale))
    missing = sorted(set(needs) - set(tests))
    if missing:
        raise RuntimeError(f"collected but not recorded: {missing}")
    NAMES_FILE.write_text(render(tests), encoding="utf-8")
    print(f"wrote {NAMES_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
