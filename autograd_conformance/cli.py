"""`autograd-conformance` (and `python -m autograd_conformance`): run the installed suites from
any directory.

The arguments are pytest's and the suite's options (`--engine`, `--baseline PATH`, `-n 2`, ...);
file options are relative to the working directory, where the reports go too
(`reports/conformance.html` unless `--report` says otherwise). The suites' configuration is fixed
(`-c`, `--rootdir`), so that a pytest.ini, tox.ini or pyproject.toml in the working directory does
not change the run, and test ids stay `suites/test_x.py::test_y[engine]`, as in a baseline written
in a checkout.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .suites import SUITES_DIR

CONFIG_FILE = Path(__file__).resolve().parent / "pytest.ini"


def pytest_args(argv: list[str]) -> list[str]:
    return ["-c", str(CONFIG_FILE), "--rootdir", str(SUITES_DIR.parent), str(SUITES_DIR), *argv]


def main(argv: list[str] | None = None) -> int:
    return int(pytest.main(pytest_args(sys.argv[1:] if argv is None else argv)))
