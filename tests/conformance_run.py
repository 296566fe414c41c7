"""Run the conformance suites in a subprocess, as a user would, for the project's own tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_suites(*args: str, timeout: float = 600,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`python -m pytest <args>` from the project root with the `ci` profile; output captured."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
               "--hypothesis-profile", "ci", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env=clean_environment(env))


def clean_environment(env: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without what would change a run under test, plus `env`."""
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("AUTOGRAD_ENGINE", "PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS")}
    environment.update(env or {})
    return environment
