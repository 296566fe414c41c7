"""The conformance suites, one module per area, and their catalog (`catalog.toml`).

A package so that the installed suites are importable as `autograd_conformance.suites`
(`pytest --pyargs autograd_conformance.suites`); the runner parametrizes the tests under this
directory by engine.
"""

from __future__ import annotations

import importlib
from collections import defaultdict
from functools import cache
from pathlib import Path

SUITES_DIR = Path(__file__).resolve().parent  # where the conformance tests are, installed or not


@cache
def tests_by_behaviour() -> dict[str, list[tuple[str, str]]]:
    """ID -> (suite file name, test name) of every test (function or class) whose `@behaviour(...)`
    marker names it. Imports every suite module (as `autograd_conformance.suites.<name>`)."""
    found = defaultdict(list)
    for path in sorted(SUITES_DIR.glob("test_*.py")):
        module = importlib.import_module(f"{__name__}.{path.stem}")
        for name, test in vars(module).items():
            marks = getattr(test, "pytestmark", []) if name.startswith(("test_", "Test")) else []
            for mark in marks:
                if mark.name == "behaviour":
                    for behaviour in mark.args:
                        found[behaviour].append((path.name, name))
    return dict(found)
