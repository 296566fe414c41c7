"""Tests that both pass and fail on one engine are unstable, never a regression or a fix
(autograd_conformance/runner/stability.py), and the thread tests choose their interleavings
(suites/test_threads.py): so that a gate flips only when its engine changes.

The end-to-end tests use tests.broken.hostile.unstable_threads, an engine that fails a thread
test's example the first time it runs it and passes it ever after: its instability is certain, so
what the runner makes of it can be checked without waiting for a race to show."""

import itertools
import json
import threading
import time
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.script import REPLAYS, Reproducer, replay_until_certain, reproducers
from autograd_conformance.runner.stability import unstable_failure
from autograd_conformance.suites import test_threads
from tests.support.run import run_pytest

UNSTABLE = "tests.broken.hostile.unstable_threads"
THR_3 = "suites/test_threads.py::test_concurrent_backward_calls_add_up_in_a_shared_leaf"
THR_3_ID = f"{THR_3}[unstable-threads]"
RUN = (THR_3, "--engine", UNSTABLE, "--no-report", "-rfxX")


def _engine(*outcomes):
    """An engine whose `torch.passes()` gives `outcomes` in turn, then the last one for ever."""
    given_out = itertools.chain(outcomes, itertools.repeat(outcomes[-1]))
    return SimpleNamespace(ns=SimpleNamespace(passes=lambda: next(given_out)))


def _reproducer(threads: bool) -> Reproducer:
    script = ("import threading\n" if threads else "") + "import torch\nassert torch.passes()\n"
    return Reproducer(script, None, True, "AssertionError", script.count("\n"))


# -- replaying until the outcome is certain ---------------------------------------------------
def test_a_reproducer_that_starts_threads_is_replayed_until_it_has_both_failed_and_passed():
    replays = replay_until_certain(_reproducer(threads=True), _engine(False, False, True))
    assert (replays.verdict, replays.runs, len(replays.failures)) == ("unstable", 3, 2)
    assert str(replays) == "failed 2 of 3 replays"
    assert replays.failures[0].error == "AssertionError"


@pytest.mark.parametrize("passes, verdict", [(True, "passes"), (False, "fails")])
def test_a_reproducer_that_starts_threads_is_certain_only_after_every_replay(passes, verdict):
    replays = replay_until_certain(_reproducer(threads=True), _engine(passes))
    assert (replays.verdict, replays.runs) == (verdict, REPLAYS)


def test_any_other_reproducer_is_replayed_once():
    replays = replay_until_certain(_reproducer(threads=False), _engine(False, True))
    assert (replays.verdict, replays.runs) == ("fails", 1)


def test_replays_stop_when_their_time_is_up():
    slow = SimpleNamespace(ns=SimpleNamespace(passes=lambda: time.sleep(0.05) or True))
    replays = replay_until_certain(_reproducer(threads=True), slow, budget_s=0.01)
    assert (replays.verdict, replays.runs) == ("passes", 1)


def test_a_script_starts_threads_when_it_imports_them():
    assert _reproducer(threads=True).starts_threads
    quoted = Reproducer("import torch\nprint('import threading')  # threading\n", None, True, "", 2)
    assert not quoted.starts_threads and not _reproducer(threads=False).starts_threads


def test_an_unlisted_failure_is_unstable_unless_a_reproducer_fails_every_replay():
    threads = _reproducer(threads=True)
    assert unstable_failure([threads], _engine(True)) == (
        "its failing example starts threads, and replayed, its reproducer(s) failed 0 of 20 "
        "replays")
    assert unstable_failure([threads], _engine(False)) is None          # fails every time
    assert unstable_failure([_reproducer(threads=False)], _engine(True)) is None  # no threads
    assert unstable_failure([], _engine(True)) is None


def test_a_verdict_raised_from_failures_carries_their_reproducers():
    found = _reproducer(threads=True)
    failure = AssertionError("the gap shows")
    setattr(failure, "conformance_reproducer", found)
    try:
        raise RuntimeError("unstable") from failure
    except RuntimeError as verdict:
        assert reproducers(verdict) == [found]


# -- the thread tests choose their interleavings ----------------------------------------------
@given(st.data(), st.integers(2, 4))
def test_the_drawn_turns_hold_every_thread_once_and_some_together(data, count):
    order = data.draw(test_threads._turns(count))
    assert sorted(thread for turn in order for thread in turn) == list(range(count))
    assert all(order) and max(len(turn) for turn in order) >= 2


def test_a_turn_starts_after_the_turns_before_it_finished_and_its_threads_start_together():
    """The scripts' own helper: with turns [[2], [0, 1]], thread 2's step ends before 0's and 1's
    start, however long it takes, and 0 and 1 are both in their step at once."""
    names = {}
    exec("\n".join(test_threads.THREADS), names)
    events, lock, inside = [], threading.Lock(), threading.Barrier(2, timeout=5)

    def body(sync, i):
        with sync.turn(i):
            with lock:
                events.append(("start", i))
            if i == 2:
                time.sleep(0.2)     # a slow first turn: the others must still wait
            else:
                inside.wait()       # both threads of the second turn are in their step
            with lock:
                events.append(("end", i))

    names["in_threads"](body, body, body, turns=[[2], [0, 1]])
    assert events[:2] == [("start", 2), ("end", 2)]
    assert {event for event in events[2:4]} == {("start", 0), ("start", 1)}


# -- what a run reports -----------------------------------------------------------------------
def test_a_run_without_baseline_fails_an_unstable_test_and_says_it_is_unstable(tmp_path):
    junit = tmp_path / "junit.xml"
    run = run_pytest(*RUN, "-n", "0", f"--junitxml={junit}")
    assert run.returncode == 1, run.stdout
    assert f"FAILED {THR_3_ID}" in run.stdout
    assert "unstable: 1 test(s) both passed and failed on their engine" in run.stdout
    assert f"{THR_3_ID} (failed the run: hypothesis ran a failing example again" in run.stdout
    assert '<property name="unstable" value="hypothesis ran a failing example again' in \
        junit.read_text()


def test_a_gate_keeps_an_unstable_known_gap_as_an_expected_failure_until_every_replay_passes(
        tmp_path):
    baseline = tmp_path / "baseline.txt"
    written = run_pytest(*RUN, f"--write-baseline={baseline}")
    assert written.returncode == 1, written.stdout
    assert f"{THR_3_ID}  # THR-3: AssertionError: x.grad" in baseline.read_text()
    evidence = json.loads((tmp_path / "baseline.evidence.json").read_text())["tests"]
    assert "import threading" in evidence[THR_3_ID][0]["body"]

    report = tmp_path / "gate.json"
    gate = run_pytest(*RUN, f"--baseline={baseline}", f"--json-report={report}")
    assert gate.returncode == 0, gate.stdout
    # a new process: the reproducer fails its first replay, and passes its second
    assert f"XFAIL {THR_3_ID} - unstable: its recorded reproducer(s) failed 1 of 2 replays; " \
           f"baseline {baseline}:3:" in gate.stdout
    [test] = json.loads(report.read_text())["tests"]
    assert test["outcome"] == "xfailed" and test["reason"].startswith("unstable: ")
    assert test["reproducers"] and "import threading" in test["reproducers"][0]["script"]

    always = run_pytest(*RUN, f"--baseline={baseline}", env={"UNSTABLE_THREADS": "always"})
    assert always.returncode == 0, always.stdout    # fails every replay: the gap still shows
    assert f"XFAIL {THR_3_ID} - baseline {baseline}:3:" in always.stdout
    fixed = run_pytest(*RUN, f"--baseline={baseline}", env={"UNSTABLE_THREADS": "never"})
    assert fixed.returncode == 1 and "XPASS(strict)" in fixed.stdout, fixed.stdout


def test_a_gate_reports_an_unstable_test_it_does_not_list_without_failing(tmp_path):
    baseline = tmp_path / "baseline.txt"
    baseline.write_text("# no known gap\n")
    gate = run_pytest(*RUN, f"--baseline={baseline}")
    assert gate.returncode == 0, gate.stdout
    assert f"XFAIL {THR_3_ID} - unstable: hypothesis ran a failing example again" in gate.stdout
    assert f"{THR_3_ID} (an expected failure: hypothesis ran" in gate.stdout
    rewritten = tmp_path / "new.txt"
    run_pytest(*RUN, f"--baseline={baseline}", f"--write-baseline={rewritten}")
    assert f"{THR_3_ID}  # THR-3: AssertionError" in rewritten.read_text()
