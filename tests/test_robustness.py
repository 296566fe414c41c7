"""The run survives the engine under test: a hanging test is stopped at the time limit and fails
with the limit in its message; an engine that ends the interpreter takes down only its xdist worker;
an engine's own exceptions are reported with the engine's message."""

import json
import time

import pytest
from hypothesis import given, settings, strategies as st

from autograd_conformance.harness.robustness import TimeLimitExceeded, soft_limit_available, time_limit
from tests.conformance_run import run_suites

needs_sigalrm = pytest.mark.skipif(not soft_limit_available(), reason="no SIGALRM here")


@needs_sigalrm
def test_the_time_limit_stops_a_sleep_and_names_the_limit():
    started = time.monotonic()
    with pytest.raises(TimeLimitExceeded, match=r"time limit of 0\.2 s \(--test-timeout 0\.2\)"):
        with time_limit(0.2):
            time.sleep(30)
    assert time.monotonic() - started < 5


@needs_sigalrm
def test_hypothesis_does_not_catch_or_shrink_the_time_limit():
    calls = []

    @settings(max_examples=50, deadline=None, database=None)
    @given(st.integers())
    def hangs(number):
        calls.append(number)
        while True:
            time.sleep(1)

    with pytest.raises(TimeLimitExceeded):
        with time_limit(0.3):
            hangs()
    assert len(calls) == 1


def test_the_time_limit_is_not_an_exception_an_engine_could_swallow():
    assert issubclass(TimeLimitExceeded, BaseException)
    assert not issubclass(TimeLimitExceeded, Exception)


def test_hanging_and_crashing_engines_do_not_stop_the_run(tmp_path):
    report = tmp_path / "run.html"
    run = run_suites("suites/test_leaves.py", "--engine", "tests.engines.hanging_backward",
                     "--engine", "tests.engines.exiting_backward", "--behaviour", "LEAF-6",
                     "-k", "test_non_leaf_grads_are_freed", "--test-timeout", "1", "-n", "2",
                     f"--report={report}")
    assert run.returncode == 1, run.stdout + run.stderr
    results = {test["nodeid"]: test for test in json.loads(report.with_suffix(".json")
                                                           .read_text())["tests"]}
    hanging = [t for t in results.values() if t["engine"] == "hanging-backward"]
    crashed = [t for t in results.values() if t["engine"] == "exiting-backward"]
    assert hanging and all(t["outcome"] == "failed" for t in hanging)
    assert all("time limit of 1 s (--test-timeout 1)" in t["error"] for t in hanging)
    assert crashed and all(t["outcome"] == "failed" and t["crashed"] for t in crashed)
    assert all("crashed while running" in t["error"] for t in crashed)
    assert all(t["behaviours"] for t in crashed)  # known from the setup report the worker sent
    html = report.read_text()
    assert "PARTIAL RUN" in html and "crashed while running" in html
    assert "hanging-backward: 0/1 behaviours pass" in run.stdout
    assert "exiting-backward: 0/1 behaviours pass" in run.stdout


def test_an_engine_error_is_reported_with_the_engine_message(tmp_path):
    json_path = tmp_path / "results.json"
    run = run_suites("suites/test_leaves.py", "--engine", "tests.engines.script_errors",
                     "--behaviour", "LEAF-8", "--no-report", f"--json-report={json_path}")
    assert run.returncode == 1
    tests = json.loads(json_path.read_text())["tests"]
    assert tests and all(t["outcome"] == "failed" for t in tests)
    for test in tests:
        assert test["error"].startswith("RuntimeError: retain_grad is <b>not</b> supported")


def test_an_interrupted_run_still_writes_a_report_that_says_it_is_partial(tmp_path):
    report = tmp_path / "run.html"
    run = run_suites("suites/test_leaves.py", "--engine", "torch",
                     "--engine", "tests.engines.interrupting_backward",
                     "--behaviour", "LEAF-6", f"--report={report}")
    assert run.returncode == 2, run.stdout  # pytest's exit code for an interrupted run
    assert "PARTIAL RUN" in report.read_text()
    assert "interrupted" in json.loads(report.with_suffix(".json").read_text())["run"]["partial"][0]
