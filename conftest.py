"""The checkout's conftest: stops a run at once when the installed package is not this checkout.

The suite's pytest plugin (options, engines, baseline, time limits, reports, hypothesis profiles)
is not registered here: the `pytest11` entry point of the installed package loads it, in a checkout
as anywhere else, so registering it here too would add every option twice. A checkout is installed
in editable mode (`python -m pip install -e .`, as in the README); without that, or with another
copy installed, a run would test the other copy's harness and suites, or fail on imports.
"""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent


def pytest_configure(config):
    spec = importlib.util.find_spec("autograd_conformance.suites")
    installed = Path(spec.origin).resolve().parent if spec and spec.origin else None
    if installed != ROOT / "suites":
        found = (f"is installed from {installed.parent}, not from this checkout" if installed
                 else "is not installed")
        raise pytest.UsageError(f"autograd_conformance {found}; install this checkout with: "
                                f"python -m pip install -e {ROOT}")
