"""The baseline of known gaps: exact matching rules, strict expected failures, skip mode, and
--write-baseline, so that an engine adopts the suite in one step and the baseline only shrinks."""

import html
import json

import pytest

from autograd_conformance.reports.dashboard import main as build_dashboard
from autograd_conformance.runner.baseline import matches, parse_baseline
from tests.support.run import run_pytest

BROKEN = "tests.broken.hostile.script_errors"  # gaps: LEAF-3 (is_leaf lies) and LEAF-8 (retain_grad raises)
LEAF_3_TEST = "suites/test_leaves.py::test_results_requiring_grad_are_non_leaves"
SELECTION = ("suites/test_leaves.py", "--engine", BROKEN, "--behaviour", "LEAF-3", "--behaviour", "LEAF-8",
             "--no-report")


def test_comments_and_blank_lines_are_not_entries():
    entries = parse_baseline("# header\n\nLEAF-6  # keeps intermediate grads\n"
                             "suites/test_x.py::test_y[eng]\n   # indented comment\n")
    assert [(e.text, e.why, e.line) for e in entries] == [
        ("LEAF-6", "keeps intermediate grads", 3), ("suites/test_x.py::test_y[eng]", "", 4)]


@pytest.mark.parametrize("entry, expected", [
    ("suites/test_x.py::test_y[mygrad]", True),    # the exact test id
    ("suites/test_x.py::test_y", True),            # the test id without its parameters
    ("LEAF-6", True),                              # a behaviour the test checks
    ("suites/test_x.py::test_y[torch]", False),    # another engine
    ("suites/test_x.py::test_", False),            # no prefixes
    ("suites/test_x.py", False),                   # no modules
    ("LEAF-", False),
    ("LEAF-60", False),
    ("suites/test_x.py::test_y[*]", False),        # no globs
])
def test_an_entry_matches_exactly(entry, expected):
    assert matches(entry, "suites/test_x.py::test_y[mygrad]", ["LEAF-5", "LEAF-6"]) is expected


def test_a_written_baseline_makes_the_next_run_pass_until_a_gap_is_fixed(tmp_path):
    baseline = tmp_path / "baseline.txt"
    first = run_pytest(*SELECTION, f"--write-baseline={baseline}")
    assert first.returncode == 1, first.stdout
    text = baseline.read_text()
    assert f"{LEAF_3_TEST}[script-errors]  # LEAF-3: AssertionError: v" in text   # its check
    assert ("# LEAF-8 not judged, the engine raised outside any check: RuntimeError: "
            "retain_grad is <b>not</b> supported") in text
    assert "distinct failures" not in text

    results = tmp_path / "gate.json"
    adopted = run_pytest(*SELECTION, f"--baseline={baseline}", "-rxX", f"--json-report={results}")
    assert adopted.returncode == 0, adopted.stdout
    assert "xfailed" in adopted.stdout.splitlines()[-1] and "failed" not in \
        adopted.stdout.splitlines()[-1].replace("xfailed", "")
    assert_known_gaps_read_whole(baseline, results, tmp_path / "dashboard.html")

    fixed = run_pytest(*SELECTION, f"--baseline={baseline}",
                       env={"SCRIPT_ERRORS_FIXED": "is_leaf"})
    assert fixed.returncode == 1, fixed.stdout
    assert f"FAILED {LEAF_3_TEST}[script-errors]" in fixed.stdout
    assert "XPASS(strict)" in fixed.stdout


def test_writing_a_baseline_needs_nothing_from_the_report_room(tmp_path):
    """The baseline writer reads what the runner attached (runner/evidence.py): with the report
    plugin blocked, the baseline it writes names each gap's behaviour and error all the same."""
    baseline = tmp_path / "baseline.txt"
    run = run_pytest(*SELECTION, f"--write-baseline={baseline}", "-p",
                     "no:autograd_conformance.reports.plugin")
    assert run.returncode == 1, run.stdout
    assert "autograd conformance" not in run.stdout   # the report room's summary is not there
    text = baseline.read_text()
    assert f"{LEAF_3_TEST}[script-errors]  # LEAF-3: AssertionError: v" in text
    assert "# LEAF-8 not judged, the engine raised outside any check: RuntimeError: " in text


def assert_known_gaps_read_whole(baseline, results, page):
    """A gated run's known gaps carry the baseline's verdict as fields, across the xdist worker
    (the entry, its line and whole comment, the reproducers replayed), and the dashboard shows
    each comment whole."""
    entries = {entry.text: entry for entry in parse_baseline(baseline.read_text())}
    gaps = [test for test in json.loads(results.read_text())["tests"] if test["outcome"] == "xfailed"]
    assert gaps
    for test in gaps:
        entry = entries[test["nodeid"]]
        assert test["baseline"] == {"file": str(baseline), "line": entry.line, "entry": entry.text,
                                    "why": entry.why, "replayed": 1}
    assert build_dashboard([str(results), "-o", str(page)]) == 0
    shown = html.unescape(page.read_text())
    for test in gaps:
        assert f"known gap: {entries[test['nodeid']].why}" in shown


def test_a_known_gap_is_judged_on_what_showed_it_whatever_the_examples_drawn(tmp_path):
    """The written baseline keeps each gap's reproducers beside it (its evidence). A gated run
    replays them instead of the test's own examples: with other examples (randomized ci under
    other seeds) the gate stays green, and it turns red (a strict xpass) only when the engine
    stops failing them."""
    baseline = tmp_path / "baseline.txt"
    assert run_pytest(*SELECTION, f"--write-baseline={baseline}").returncode == 1
    evidence = json.loads((tmp_path / "baseline.evidence.json").read_text())["tests"]
    assert set(evidence) == {f"{LEAF_3_TEST}[script-errors]",
                             "suites/test_leaves.py::test_retain_grad_keeps_a_non_leaf_gradient"
                             "[script-errors]",
                             "suites/test_leaves.py::test_seed_retain_grad_on_intermediate"
                             "[script-errors]"}
    assert all(found["body"] and found["error"] for listed in evidence.values() for found in listed)
    for seed in ("3", "11"):
        other_examples = run_pytest(*SELECTION, f"--baseline={baseline}", "-p",
                                    "tools.seeded_profiles", "--hypothesis-profile", "ci-seeded",
                                    "--hypothesis-seed", seed, "-rx")
        assert other_examples.returncode == 0, other_examples.stdout
        assert "judged on its 1 recorded reproducer(s)" in other_examples.stdout
    fixed = run_pytest(*SELECTION, f"--baseline={baseline}", "-p", "tools.seeded_profiles",
                       "--hypothesis-profile", "ci-seeded", "--hypothesis-seed", "3",
                       env={"SCRIPT_ERRORS_FIXED": "is_leaf"})
    assert fixed.returncode == 1 and "XPASS(strict)" in fixed.stdout, fixed.stdout


def test_rewriting_a_baseline_says_what_it_adds_and_drops(tmp_path):
    """--baseline OLD --write-baseline NEW: the lines an upgrade (or a fix) changes."""
    old = tmp_path / "old.txt"
    old.write_text(f"{LEAF_3_TEST}  # is_leaf\nsuites/test_leaves.py::test_gone  # a removed test\n")
    new = tmp_path / "new.txt"
    run = run_pytest(*SELECTION, f"--baseline={old}", f"--write-baseline={new}")
    assert "baseline changes: 2 added, 1 dropped" in run.stdout, run.stdout
    assert "+ suites/test_leaves.py::test_retain_grad_keeps_a_non_leaf_gradient[script-errors]" \
        in run.stdout
    assert "- suites/test_leaves.py::test_gone" in run.stdout


def test_skip_mode_does_not_run_baselined_tests_and_unlisted_failures_still_fail(tmp_path):
    baseline = tmp_path / "baseline.txt"
    baseline.write_text(f"{LEAF_3_TEST}  # is_leaf is always True\n"
                        "LEAF-99  # a behaviour the catalog has not got\n"
                        "suites/test_leaves.py::test_no_such_test\n")
    run = run_pytest(*SELECTION, f"--baseline={baseline}", "--baseline-mode", "skip", "-rfs")
    assert run.returncode == 1, run.stdout  # LEAF-8's failures are not listed
    assert f"baseline {baseline}:1: {LEAF_3_TEST} (is_leaf is always True)" in run.stdout
    assert "FAILED suites/test_leaves.py::test_retain_grad_keeps_a_non_leaf_gradient" in run.stdout
    for line in (2, 3):
        assert f"{baseline}:{line}: baseline entry" in run.stdout
        assert "matches no collected test" in run.stdout


def test_a_behaviour_id_entry_excuses_every_test_of_that_behaviour(tmp_path):
    baseline = tmp_path / "baseline.txt"
    baseline.write_text("LEAF-3  # is_leaf\nLEAF-8  # retain_grad\n")
    run = run_pytest(*SELECTION, f"--baseline={baseline}", "--baseline-mode", "skip")
    assert run.returncode == 0, run.stdout
    assert "script-errors: 0/2 behaviours pass at level strict (2 known gaps)" in run.stdout


def test_a_known_gap_stops_at_its_first_failing_example(tmp_path):
    """In xfail mode hypothesis does not shrink a baselined test (it would, on every run, at a cost
    that grows with the number of gaps); an unlisted failure is still shrunk to its smallest form."""
    baseline = tmp_path / "baseline.txt"
    baseline.write_text("LEAF-3  # is_leaf\n")
    selection = ("suites/test_leaves.py::test_results_requiring_grad_are_non_leaves",
                 "--engine", BROKEN, "--no-report", "-n", "0", "--hypothesis-show-statistics")
    gap = run_pytest(*selection, f"--baseline={baseline}")
    failure = run_pytest(*selection)
    assert gap.returncode == 0 and failure.returncode == 1, gap.stdout + failure.stdout
    for run in (gap, failure):
        assert "during generate phase" in run.stdout and "Found 1 distinct error" in run.stdout
    assert "shrink phase" not in gap.stdout
    assert "shrink phase" in failure.stdout


def test_a_baseline_is_written_only_from_a_complete_run(tmp_path):
    """An engine given up after hanging on its first tests leaves tests not run: --write-baseline
    writes nothing and the run exits 6, saying why and which options change it; with
    --partial-baseline it writes what it saw, marked partial in its header."""
    baseline = tmp_path / "baseline.txt"
    selection = ("suites/test_leaves.py", "--engine", "tests.broken.hostile.hanging_backward",
                 *[arg for id_ in ("LEAF-1", "LEAF-5", "LEAF-6", "REQ-9", "MISC-3")
                   for arg in ("--behaviour", id_)],
                 "--test-timeout", "1", "--unresponsive-after", "2", "--no-report")
    run = run_pytest(*selection, f"--write-baseline={baseline}", timeout=120)
    assert run.returncode == 6, run.stdout + run.stderr
    assert not baseline.exists() and not baseline.with_suffix(".evidence.json").exists()
    assert f"--write-baseline {baseline}: not written, the run was incomplete: " in run.stdout
    assert "tests were not run (not run: engine 'hanging-backward' is unresponsive" in run.stdout
    assert "--partial-baseline" in run.stdout and "--unresponsive-after" in run.stdout

    run = run_pytest(*selection, f"--write-baseline={baseline}", "--partial-baseline", timeout=120)
    assert run.returncode == 1, run.stdout + run.stderr
    header = [line for line in baseline.read_text().splitlines() if line.startswith("#")]
    assert any(line.startswith("# PARTIAL (--partial-baseline): written from an incomplete run")
               for line in header), header
    assert len(parse_baseline(baseline.read_text())) == 2   # the two that hung before the give-up
