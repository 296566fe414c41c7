"""The suite's command-line options and markers, in one place, and whether a run is a conformance run.

The entry point (autograd_conformance/pytest_plugin.py) adds these to every pytest run of an
environment where the package is installed, so that they are known before pytest parses the
command line; the rest of the runner is imported only in a conformance run. So this module imports
nothing heavy: no hypothesis, no NumPy, no engine.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from ..harness.catalog import LEVELS
from ..harness.engines import DEFAULT_ENGINES, SHORT_NAMES
from ..suites import SUITES_DIR

DEFAULT_TIMEOUT = 60.0
DEFAULT_SHRINK_BUDGET = 30.0
DEFAULT_UNRESPONSIVE_AFTER = 3
MARKERS = (
    "behaviour(*ids): the catalog behaviour IDs a test checks",
    "needs(*capabilities): adapter capabilities a test needs; skipped with a reason on engines "
    "without them",
    "op(*names): ops of the random programs' op set the test applies on purpose; skipped, with "
    "the reason, on engines whose adapter declares them in missing_ops",
    "fresh_process: the test runs the engine in a child process too (tools/mutation cannot "
    "trace what it executes there)",
    "control(test): the suite test that holds the positive control of this test's refusals (the "
    "same program, run without the offending step, succeeding with the right values)",
)


def add_options(parser) -> None:
    group = parser.getgroup("autograd-conformance")
    group.addoption("--engine", action="append", metavar="SPEC",
                    help=f"engine to test: a short name ({', '.join(SHORT_NAMES)}) or "
                         f"package.module[:attribute]; repeatable. Default: $AUTOGRAD_ENGINE, "
                         f"else {' and '.join(DEFAULT_ENGINES)}.")
    group.addoption("--device", default="cpu",
                    help="device for the tensors of torch-family engines (default: cpu)")
    group.addoption("--level", choices=LEVELS, default="strict",
                    help="run behaviours up to this conformance level (default: strict)")
    group.addoption("--behaviour", action="append", metavar="ID",
                    help="run only the tests that check this catalog behaviour; repeatable")
    group.addoption("--baseline", metavar="FILE",
                    help="known gaps: tests or behaviour IDs listed here are expected to fail "
                         "(strict: a listed test that passes fails the run)")
    group.addoption("--baseline-mode", choices=("xfail", "skip"), default="xfail",
                    help="xfail (default): run listed tests as strict expected failures; "
                         "skip: do not run them (a fast pull-request gate)")
    group.addoption("--write-baseline", metavar="FILE",
                    help="write the tests that fail in this run to FILE, as a baseline")
    group.addoption("--partial-baseline", action="store_true",
                    help="with --write-baseline: write it even from an incomplete run (tests not "
                         "run, an interruption), marked partial in its header (by default it is "
                         "not written and the run exits 6)")
    group.addoption("--test-timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                    help=f"fail a test when one of its examples runs longer than this: the "
                         f"engine hung (default {DEFAULT_TIMEOUT:g}; 0: no limit)")
    group.addoption("--shrink-budget", type=float, default=None, metavar="SECONDS",
                    help=f"how long hypothesis may shrink a test's failures before it reports "
                         f"the smallest found so far (default {DEFAULT_SHRINK_BUDGET:g}; 5 with "
                         f"--hypothesis-profile explore)")
    group.addoption("--unresponsive-after", type=int, default=DEFAULT_UNRESPONSIVE_AFTER,
                    metavar="N",
                    help=f"when N tests of one engine in a row time out or crash (and at least "
                         f"half of its tests so far), report its other tests as not run (default "
                         f"{DEFAULT_UNRESPONSIVE_AFTER}; 0: never give up)")
    group.addoption("--no-set-aside", action="store_true",
                    help="judge no op of the op set first: an op that fails its own verdict is "
                         "still drawn in every behaviour's random programs (by default it is set "
                         "aside on that engine and fails only its own gradient tests)")
    group.addoption("--report", metavar="PATH",
                    help="write the HTML report here (default: reports/conformance.html)")
    group.addoption("--no-report", action="store_true",
                    help="write no HTML report (and no JSON results unless --json-report)")
    group.addoption("--json-report", metavar="PATH",
                    help="write the JSON results here (default: next to the HTML report)")


def runs_suites(config) -> bool:
    """Whether this run collects conformance tests: an argument names the suites' directory (where
    the package is, whatever the working directory), something in it, or the directory that holds
    it (the checkout's root). Not any directory further up: the plugin is loaded in every pytest run
    of an environment where the package is installed, and a project's own tests are not a
    conformance run."""
    paths = [argument_path(config, arg.split("::")[0]) for arg in config.args]
    return any(path in (SUITES_DIR, SUITES_DIR.parent) or SUITES_DIR in path.parents
               for path in paths)


def argument_path(config, arg: str) -> Path:
    """The file or directory a command-line argument names: with --pyargs, as pytest does, a module
    of that name if there is one (`autograd_conformance.suites`), else a path."""
    if config.getoption("pyargs"):
        try:
            spec = importlib.util.find_spec(arg)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin is not None:
            origin = Path(spec.origin).resolve()
            return origin.parent if spec.submodule_search_locations else origin
    return (config.invocation_params.dir / arg).resolve()
