"""tests/support/warm.py gives each run the fresh process that a broken engine needs: what one run does
to torch never reaches the next, and exit status, streams, environment and time-out behave as
they do for `subprocess.run`."""

import subprocess

import pytest

from tests.support.run import ROOT
from tests.support.warm import clean_environment, run_python


def _python(code: str, **kwargs) -> subprocess.CompletedProcess:
    return run_python(["-c", code, "an-argument"], cwd=ROOT,
                      env=clean_environment(kwargs.pop("env", {})), **kwargs)


def test_a_patch_of_torch_stays_in_its_run():
    patched = _python("import torch; torch.Tensor.backward = None; print(torch.Tensor.backward)")
    assert patched.returncode == 0 and patched.stdout.strip() == "None", patched.stderr
    fresh = _python("import torch; print(torch.Tensor.backward is not None)")
    assert fresh.stdout.strip() == "True", fresh.stderr


def test_streams_arguments_environment_and_exit_status():
    run = _python("import os, sys\nprint(sys.stdin.read().upper(), sys.argv[1:], "
                  "os.environ['WARM_PROBE'])\nprint('to stderr', file=sys.stderr)\nsys.exit(3)",
                  input="stdin text", env={"WARM_PROBE": "set"})
    assert run.returncode == 3
    assert run.stdout.strip() == "STDIN TEXT ['an-argument'] set"
    assert run.stderr.strip() == "to stderr"


def test_an_uncaught_exception_exits_1_with_its_traceback():
    run = _python("raise KeyError('lost')")
    assert run.returncode == 1 and "KeyError: 'lost'" in run.stderr


def test_a_hung_run_is_killed_at_its_time_out():
    with pytest.raises(subprocess.TimeoutExpired):
        _python("import time; time.sleep(60)", timeout=1)
    assert _python("print('next')").stdout.strip() == "next"  # the server serves on


def test_modules_run_as_main():
    run = run_python(["-m", "json.tool"], cwd=ROOT, env=clean_environment(), input='{"a": 1}')
    assert run.returncode == 0 and '"a": 1' in run.stdout
