"""The runner reaches into three of hypothesis' internals (the pool of local constants, a test's own
settings, the shrinking time limit); a hypothesis outside the tested range stops a conformance run at start-up with one
line that says what to install, and a missing internal fails loudly instead of silently losing the
ci profile's determinism or the known gaps' fast path."""

import hypothesis
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance import runner
from autograd_conformance.runner.baseline import first_failure_only
from autograd_conformance.runner.plugin import empty_local_constants
from tests.support.run import ROOT
from tests.support.warm import clean_environment, run_python


@pytest.mark.parametrize("version", ["6.171.0", "6.169.3", "7.0.0"])
def test_a_version_outside_the_tested_range_is_refused(version):
    with pytest.raises(runner.UnsupportedHypothesis, match=rf"hypothesis {version} is installed"):
        runner.check_hypothesis_version(version)


def test_the_installed_version_is_in_the_tested_range():
    runner.check_hypothesis_version()
    runner.check_hypothesis_version(".".join(map(str, runner.TESTED_HYPOTHESIS)) + ".99")


def test_a_newer_hypothesis_stops_the_run_at_start_up_in_one_line():
    newer = "6.171.0"
    run = run_python(["-c", f"import sys, hypothesis, pytest; hypothesis.__version__ = {newer!r}; "
                            f"sys.exit(pytest.main(['suites/test_leaves.py', '--engine', 'torch', "
                            f"'-p', 'no:cacheprovider']))"],
                     cwd=ROOT, env=clean_environment())
    output = run.stdout + run.stderr
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, output
    lines = [line for line in output.splitlines() if "hypothesis" in line]
    assert lines == [f"ERROR: autograd-conformance is tested with hypothesis 6.170.x, and "
                     f"hypothesis {newer} is installed; install the tested one: python -m pip "
                     f"install 'hypothesis==6.170.*'"], output
    assert "Traceback" not in output


def test_a_missing_internal_fails_loudly(monkeypatch):
    from hypothesis.internal.conjecture import providers
    monkeypatch.delattr(providers, "_get_local_constants")
    with pytest.raises(RuntimeError, match=f"hypothesis {hypothesis.__version__} has no"):
        empty_local_constants()

    @given(st.integers())
    def a_test(x):
        pass

    monkeypatch.delattr(a_test, "_hypothesis_internal_use_settings")
    with pytest.raises(RuntimeError, match="keeps a test's settings elsewhere"):
        with first_failure_only(a_test):
            pass
