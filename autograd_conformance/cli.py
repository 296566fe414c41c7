"""`autograd-conformance` (and `python -m autograd_conformance`): run the installed suites from
any directory.

The arguments are pytest's and the suite's options (`--engine`, `--baseline PATH`, `-n 2`, ...);
file options are relative to the working directory, where the reports go too
(`reports/conformance.html` unless `--report` says otherwise), and an adapter module there is
importable (`--engine my_adapter`), as with `python -m pytest`. The suites' configuration is fixed
(`-c`, `--rootdir`), so that a pytest.ini, tox.ini or pyproject.toml in the working directory does
not change the run, and test ids stay `suites/test_x.py::test_y[engine]`, as in a baseline written
in a checkout.

Two arguments are the command's own: `--help` starts with the suite's usage and options (then
pytest's), and `--check-adapter` lists, for each `--engine`, which names of the contract its
adapter has, capability by capability, and for a declared capability how many of its tests can
run (suites/names.toml: the names each test uses), without running a test.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import pytest

from .harness.contract import CAPABILITIES, CONTRACT_NAMES, lacking_names
from .harness.engines import EngineLoadError, load_engine, specs_from
from .runner.needs import capability_tests
from .runner.options import add_options
from .suites import SUITES_DIR

CONFIG_FILE = Path(__file__).resolve().parent / "pytest.ini"
USAGE = """\
usage: autograd-conformance [--engine SPEC ...] [--level core|extended|strict] [options]
       autograd-conformance --check-adapter --engine SPEC

Runs the conformance suites against autograd engines (default: torch and the reference engine)
and writes reports/conformance.html and .json. SPEC is a short name or an importable
package.module[:attribute], the current directory included. A first run for a new engine:

  autograd-conformance --check-adapter --engine my_adapter        # what the adapter has, in seconds
  autograd-conformance --engine my_adapter --level core -n 2      # a first verdict, explained
  autograd-conformance --engine my_adapter --level core -n 2 --hypothesis-profile ci \\
      --write-baseline baseline.txt                               # adopt today's gaps
"""


def pytest_args(argv: list[str]) -> list[str]:
    return ["-c", str(CONFIG_FILE), "--rootdir", str(SUITES_DIR.parent), str(SUITES_DIR), *argv]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())   # an adapter beside the user, as `python -m pytest` finds it
    if "--check-adapter" in argv:
        return check_adapter(argv)
    if "-h" in argv or "--help" in argv:
        print(USAGE)
        print(suite_options_help())
        print("Every pytest option works too; pytest's own help follows.\n")
    return int(pytest.main(pytest_args(argv)))


def suite_options_help() -> str:
    """The suite's options as argparse prints them (the same declarations pytest registers)."""
    parser = argparse.ArgumentParser(add_help=False, usage=argparse.SUPPRESS)
    group = parser.add_argument_group("autograd-conformance options")

    class Group:
        def addoption(self, *names, **options):
            group.add_argument(*names, **options)

    add_options(type("Parser", (), {"getgroup": lambda self, name: Group()})())
    group.add_argument("--check-adapter", action="store_true",
                       help="list, per capability, which names of the contract each --engine's "
                            "adapter has and how many of the capability's tests can run, and stop")
    return parser.format_help()


def check_adapter(argv: list[str]) -> int:
    """Print, for each engine, each capability: declared or not, the contract's names its adapter
    lacks, and for a declared one how many of its tests can run and which lacking names keep the
    others from running. Exit 1 when core lacks names (its tests would fail, not skip) or an
    engine does not load."""
    parser = argparse.ArgumentParser(prog="autograd-conformance --check-adapter")
    parser.add_argument("--check-adapter", action="store_true")
    parser.add_argument("--engine", action="append")
    parser.add_argument("--device", default="cpu")
    options, _ = parser.parse_known_args(argv)
    status = 0
    for spec in specs_from(options.engine, os.environ.get("AUTOGRAD_ENGINE")):
        try:
            engine = load_engine(spec, options.device)
        except EngineLoadError as error:
            print(f"{spec}: does not load: {error}")
            status = 1
            continue
        print(f"{engine.name} {engine.version} ({spec})"
              + (f"; lacks ops {', '.join(sorted(engine.missing_ops))}" if engine.missing_ops
                 else ""))
        for capability, names in CONTRACT_NAMES.items():
            lacking = lacking_names(engine.ns, names)
            declared = engine.has(capability)
            mark = ("declared" if declared else "not declared").ljust(12)
            if not names:
                found = "no names of its own: declare it if the engine does what the contract says"
            elif lacking:
                found = f"lacks {', '.join(lacking)}"
            elif capability != "core" and set(names) <= set(CONTRACT_NAMES["core"]):
                found = "core's names, with an argument or a behaviour more (see the contract)"
            else:
                found = f"has all {len(names)} name{'s' * (len(names) > 1)}"
            if declared and capability != "core":
                found += f"; {tests_that_run(engine, capability)}"
            hint = ("  <- declared but incomplete: core's tests fail without them"
                    if capability == "core" and lacking else
                    "  <- has the names: declare it if the engine does what the contract says"
                    if not declared and names and not lacking
                    and not set(names) <= set(CONTRACT_NAMES["core"]) else "")
            print(f"  {capability:<24} {mark} {found}{hint}")
            status |= int(capability == "core" and bool(lacking))
        print(f"  ({len(CAPABILITIES)} capabilities: docs/adapter-contract.md says what each needs)")
    return status


def tests_that_run(engine, capability: str) -> str:
    """`39 of 40 tests run; 1 skipped for lacking autograd.function.once_differentiable (1)`: how
    many of the capability's tests can run on `engine` (suites/names.toml), and the names it
    lacks that the others use, each with how many use it: what would unlock them."""
    tests = capability_tests(engine, capability)
    text = f"{tests.runnable} of {tests.tests} test{'s' * (tests.tests != 1)} run"
    if tests.other_capabilities:
        text += f" ({tests.other_capabilities} need a capability not declared)"
    skipped = tests.tests - tests.other_capabilities - tests.runnable
    if skipped:
        text += f"; {skipped} skipped for lacking " + ", ".join(
            f"{name} ({count})" for name, count in tests.unlock.most_common())
    return text
