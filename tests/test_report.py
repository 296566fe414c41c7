"""The report of a conformance run: the summary line per engine, the JSON results, JUnit XML
properties, and a self-contained HTML file that escapes everything an engine says."""

import base64
import dataclasses
import hashlib
import html
import json
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograd_conformance.harness.engines import load_engine
from autograd_conformance.harness.graphs import describe_graph, expected_graph, node_label
from autograd_conformance.harness.program import Leaf, Node, Program
from autograd_conformance.harness.strategies import programs
from autograd_conformance.reports.dashboard import load_results
from autograd_conformance.reports.dashboard import main as build_dashboard
from autograd_conformance.reports.html import SCRIPT, graph_svg, render_report
from autograd_conformance.reports.results import (
    Results,
    TestRecord,
    behaviour_matrix,
    behaviour_states,
    cell_state,
    engine_summaries,
    error_groups,
    module_durations,
    results_json,
)
from tests.support.run import run_pytest
from tools.conformance_table import rows

HOSTILE = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>"


def fake_results(records, partial=()):
    """What the report plugin would hold after a run with these test records."""
    results = Results.of(records)
    engines = sorted({record.engine for record in records})
    matrix = behaviour_matrix(results, engines)
    summaries = engine_summaries(results, engines, matrix)
    run = {"date": "2026-01-01T00:00:00", "duration_s": 1.0, "torch": "2.13",
           "engines": [{"name": e, "version": "1.0" + HOSTILE} for e in engines],
           "hypothesis": "profile ci", "level": "strict", "levels": ["core", "extended", "strict"],
           "device": "cpu", "behaviours_selected": [], "baseline": None, "workers": 0,
           "command": "python -m pytest suites", "exit_status": 1, "partial": list(partial)}
    return run, results, matrix, summaries


def fake_run(records, partial=()):
    run, results, matrix, summaries = fake_results(records, partial)
    return render_report(run, results, matrix, summaries, module_durations(results),
                         error_groups(results))


def graph(grad_fn, is_leaf):
    return {"error": None, "variables": [
        {"name": "x0", "op": None, "args": [], "is_leaf": True, "requires_grad": True,
         "grad_fn": None},
        {"name": "v1", "op": "exp", "args": ["x0"], "is_leaf": is_leaf, "requires_grad": True,
         "grad_fn": grad_fn}]}


FAILED = TestRecord("suites/test_leaves.py::test_a[evil]", engine="evil", behaviours=["LEAF-3"],
                    outcome="failed", error="RuntimeError: " + HOSTILE, traceback=HOSTILE,
                    reproducers=[{"behaviour": "LEAF-3", "check": True, "line": 2,
                                  "error": "AssertionError: " + HOSTILE,
                                  "script": "import torch\nx = torch.tensor([1.0]) # " + HOSTILE}],
                    graphs={"engine": graph("<Evil>Backward", True),
                            "torch": graph("ExpBackward0", False)})
PASSED = TestRecord("suites/test_leaves.py::test_a[torch]", engine="torch", behaviours=["LEAF-3"])


def test_a_behaviour_passes_only_when_all_its_tests_pass():
    def records(*outcomes):
        return [TestRecord(f"t{i}", outcome=o, behaviours=["B"]) for i, o in enumerate(outcomes)]
    assert cell_state(records("passed", "passed"), "B") == "passed"
    assert cell_state(records("passed", "xpassed"), "B") == "passed"
    assert cell_state(records("passed", "skipped"), "B") == "skipped"
    assert cell_state(records("xfailed", "skipped"), "B") == "xfailed"
    assert cell_state(records("passed", "failed", "xfailed"), "B") == "failed"
    assert cell_state([], "B") == "notrun"


def _reproducer(behaviour, check, error="AssertionError: no"):
    return {"behaviour": behaviour, "check": check, "error": error, "script": "", "line": 1}


def test_a_failing_test_fails_only_the_behaviours_whose_checks_failed():
    """A failed check fails its behaviour (one that names none, all of the test's); where the
    engine raised outside any check, the test's other behaviours were not judged (error); where
    another behaviour's check failed, not judged either (unjudged), never passed; a failure
    without a reproducer (a crash, a time-out) fails them all."""
    def states(*reproducers):
        return behaviour_states(TestRecord("t", outcome="failed", behaviours=["B1", "B2"],
                                           reproducers=list(reproducers)))
    assert states(_reproducer("B1", True)) == {"B1": "failed", "B2": "unjudged"}
    assert states(_reproducer(None, True)) == {"B1": "failed", "B2": "failed"}
    assert states(_reproducer("B1", True), _reproducer(None, False)) == {
        "B1": "failed", "B2": "error"}
    assert states(_reproducer(None, False)) == {"B1": "error", "B2": "error"}
    assert states() == {"B1": "failed", "B2": "failed"}
    record = TestRecord("t", engine="e", outcome="failed", behaviours=["B1"],
                        reproducers=[_reproducer(None, False, "TypeError: no mean")])
    cell = behaviour_matrix(Results.of([record]), ["e"])["B1"]["e"]
    assert (cell.state, cell.error) == ("error", "TypeError: no mean")


def test_a_failed_test_that_applied_a_set_aside_op_judges_none_of_its_behaviours():
    """A test that applied an op set aside on its engine (it failed its own verdict) and failed
    judges none of its behaviours, whichever check failed: the op may be why (op_set_aside, whose
    cell names the op and the error); passing, it passes them, and as an expected failure it is a
    known gap. Another test of the behaviour that failed on its own still fails it, and the
    summary counts both kinds."""
    uses = {"engine": "e", "behaviours": ["B1", "B2"], "uses_set_aside": ["pow"]}
    failed = TestRecord("t1", outcome="failed", reproducers=[_reproducer("B1", True)], **uses)
    assert behaviour_states(failed) == {"B1": "op_set_aside", "B2": "op_set_aside"}
    assert behaviour_states(TestRecord("t2", **uses)) == {"B1": "passed", "B2": "passed"}
    assert behaviour_states(TestRecord("t3", outcome="xfailed", **uses))["B1"] == "xfailed"
    own = TestRecord("t4", engine="e", outcome="failed", behaviours=["B2"],
                     reproducers=[_reproducer("B2", True, "AssertionError: B2's own")])
    results = Results.of([failed, own])
    matrix = behaviour_matrix(results, ["e"])
    aside = matrix["B1"]["e"]
    assert (aside.state, matrix["B2"]["e"].state) == ("op_set_aside", "failed")
    why = "uses op pow, set aside (it failed its own verdict): AssertionError: no"
    assert aside.error == why and aside.detail == f"t1: op_set_aside - {why}"
    summary = engine_summaries(results, ["e"], matrix)["e"]
    assert summary.line("strict") == ("e: 0/2 behaviours pass at level strict (1 failing, 1 not "
                                      "judged: the test uses an op set aside)")


_BEHAVIOURS = ("B1", "B2", "B3")


@given(reproducers=st.lists(st.builds(_reproducer, st.sampled_from((None,) + _BEHAVIOURS),
                                      st.booleans()), max_size=4),
       uses_set_aside=st.lists(st.sampled_from(("exp", "pow")), max_size=1),
       others=st.lists(st.sampled_from(("passed", "xpassed", "skipped", "xfailed")), max_size=2))
def test_no_behaviour_passes_with_a_failed_test(reproducers, uses_set_aside, others):
    """Attribution is exact: whatever a failed test's reproducers say, and whether it applied an op
    set aside, none of its behaviours is passed by it, and a behaviour with a failed test never
    passes on that engine."""
    failed = TestRecord("failed", engine="e", outcome="failed", behaviours=list(_BEHAVIOURS),
                        reproducers=reproducers, uses_set_aside=uses_set_aside)
    assert "passed" not in behaviour_states(failed).values()
    records = [failed] + [TestRecord(f"t{i}", engine="e", outcome=outcome, behaviours=["B1"])
                          for i, outcome in enumerate(others)]
    matrix = behaviour_matrix(Results.of(records), ["e"])
    assert all(matrix[b]["e"].state != "passed" for b in _BEHAVIOURS)


def test_a_behaviour_whose_shared_test_failed_on_another_check_is_not_judged(tmp_path):
    """VIEW-13 and VIEW-14 share a test: an engine whose no_grad views are writable fails its
    VIEW-13 check first, so VIEW-14's check (the error's message) never runs, and VIEW-14 is not
    judged on that engine: neither passed nor failed (end to end, from the JSON results)."""
    engine = "tests.broken:reference_no_grad_views_writable"
    run = run_pytest("suites/test_views.py", "--engine", engine, "--behaviour", "VIEW-13",
                     "-n", "0", "--no-report", f"--json-report={tmp_path / 'run.json'}")
    assert run.returncode == 1, run.stdout + run.stderr
    data = json.loads((tmp_path / "run.json").read_text())
    [name] = data["summary"]
    states = {behaviour: row[name] for behaviour, row in data["behaviours"].items()}
    assert states["VIEW-13"] == "failed" and states["VIEW-14"] == "unjudged", states
    assert "1 not judged: another behaviour's check failed first" in run.stdout


def test_failures_are_grouped_by_root_error_across_tests():
    """Errors that differ only in variable names, numbers and a tensor's values are one group."""
    records = [TestRecord(f"t{i}", engine="e", outcome="failed", behaviours=["B"], reproducers=[
        _reproducer(None, True, f"AssertionError: x{i}.grad is tensor([{i}., 2.]), expected None"),
        _reproducer(None, False, "NotSupportedByEngine: no mean")]) for i in range(3)]
    records.append(TestRecord("t3", engine="e", outcome="failed", behaviours=["B"],
                              reproducers=[_reproducer(None, False, "NotSupportedByEngine: no mean")]))
    groups = error_groups(Results.of(records))
    assert [(g.error, g.reproducers, len(g.tests)) for g in groups] == [
        ("NotSupportedByEngine: no mean", 4, 4),
        ("AssertionError: x0.grad is tensor([0., 2.]), expected None", 3, 3)]
    page = fake_run(records)
    assert "Failures by root error" in page and "NotSupportedByEngine: no mean" in page


def test_every_string_from_an_engine_is_escaped():
    page = fake_run([FAILED, PASSED])
    assert "<script>document" not in page and "<img" not in page
    assert "&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;" in page
    assert "&lt;Evil&gt;Backward" in page
    assert page.count("<script") == 1  # the page's own filter script


def test_an_engine_card_names_its_ops_set_aside_with_their_calls_escaped():
    """The ops an engine had set aside (runner/op_verdicts.py) are on its card, each with its error
    and smallest failing call, escaped like everything an engine says; or why none was judged."""
    run, results, matrix, summaries = fake_results([FAILED, PASSED])
    for engine in run["engines"]:
        engine["set_aside_ops"] = {"transpose": {
            "error": "IndexError: " + HOSTILE, "fault": False,
            "script": "v2 = x0.transpose(-3, -1)  # " + HOSTILE}} if engine["name"] == "torch" else {}
        engine["ops_not_judged"] = "" if engine["name"] == "torch" else "add's own verdict hung"
    page = render_report(run, results, matrix, summaries, module_durations(results),
                         error_groups(results))
    assert "<b>transpose</b>: IndexError: &lt;script&gt;" in page
    assert "v2 = x0.transpose(-3, -1)  # &lt;script&gt;" in page and "<img" not in page
    assert "no op set aside: add&#39;s own verdict hung" in page


def test_the_page_is_self_contained_and_allows_only_its_own_script():
    page = fake_run([FAILED, PASSED])
    assert not re.search(r"<(link|script|img|iframe)[^>]+(src|href)=\"https?:", page)
    assert "@import" not in page and "url(http" not in page
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert "default-src &#39;none&#39;" in csp and f"sha256-{digest}" in csp
    assert f"<script>{SCRIPT}</script>" in page


def test_the_graph_picture_shows_grad_fn_names_and_marks_differences_from_torch():
    picture = graph_svg(graph("ExpBackward1", True), compare=graph("ExpBackward0", False))
    assert picture.startswith("<svg") and picture.count("<rect") == 2 and "<line" in picture
    assert "grad_fn: ExpBackward1" in picture and "grad_fn: None" in picture
    assert picture.count('stroke="#cf222e"') == 1  # v1 differs, x0 does not
    assert picture.count('rx="0"') == 2  # both claim to be leaves: square corners


def _graph(leaf_grad_fn, v1_grad_fn, v1_edges, grad_fn_names):
    """x0 -> v1 = exp(x0) with x0's grad_fn and v1's grad_fn label and edges as given."""
    return {"error": None, "grad_fn_names": grad_fn_names, "variables": [
        {"name": "x0", "op": None, "args": [], "is_leaf": True, "requires_grad": True,
         "grad_fn": leaf_grad_fn, "edges": None},
        {"name": "v1", "op": "exp", "args": ["x0"], "is_leaf": False, "requires_grad": True,
         "grad_fn": v1_grad_fn, "edges": v1_edges}]}


TORCH_GRAPH = _graph(None, "ExpBackward0", [True], grad_fn_names=True)


def test_node_names_are_compared_only_where_the_engine_declares_grad_fn_names():
    undeclared = graph_svg(_graph(None, "exp_grad", [True], grad_fn_names=False),
                           compare=TORCH_GRAPH)
    assert 'stroke="#cf222e"' not in undeclared and "grad_fn: exp_grad" in undeclared
    declared = graph_svg(_graph(None, "exp_grad", [True], grad_fn_names=True),
                         compare=TORCH_GRAPH)
    assert declared.count('stroke="#cf222e"') == 1  # v1's name differs from torch's


def test_structure_is_compared_whatever_the_engine_declares():
    leaf_with_node = graph_svg(_graph("accumulation", "exp_grad", [True], grad_fn_names=False),
                               compare=TORCH_GRAPH)
    assert leaf_with_node.count('stroke="#cf222e"') == 1  # x0: a leaf with a grad_fn
    cut_edge = graph_svg(_graph(None, "exp_grad", [False], grad_fn_names=False),
                         compare=TORCH_GRAPH)
    assert cut_edge.count('stroke="#cf222e"') == 1  # v1: no edge to x0's accumulator


def test_a_node_is_labelled_by_its_name_method_where_it_has_one():
    class Named:
        def name(self):
            return "exp_grad"

    class Unnamed:
        pass

    assert node_label(Named()) == "exp_grad"
    assert node_label(Unnamed()) == "Unnamed"
    assert node_label(None) is None


def test_describe_graph_reads_edges_and_names_only_where_declared():
    program = Program("float32", (Leaf("x0", np.array([0.5, 1.0]), True),
                                  Leaf("x1", np.array([2.0, 3.0]), False)),
                      (Node("v2", "mul", ("x0", "x1")),), "v2")
    torch_engine = load_engine("torch")
    tensors = program.run_on(torch_engine)
    full = describe_graph(program, torch_engine, tensors)
    assert full["grad_fn_names"] is True and full["error"] is None
    assert full["variables"][2]["grad_fn"] == "MulBackward0"
    assert full["variables"][2]["edges"] == [True, False]  # x1 does not require grad
    core_only = describe_graph(program, dataclasses.replace(
        torch_engine, capabilities=frozenset({"core"})), tensors)
    assert core_only["grad_fn_names"] is False and core_only["variables"][2]["edges"] is None
    unbuilt = describe_graph(program, torch_engine, {"x0": tensors["x0"]})
    assert unbuilt["error"] == "not built: x1, v2 (the script failed before)"


def test_the_expected_graph_is_the_one_torch_builds():
    """The report draws torch's graph by the catalog's rules; on random programs it is what torch
    itself builds."""
    torch_engine = load_engine("torch")

    @settings(max_examples=40, deadline=None)
    @given(programs(torch_engine, requires_grad="mixed"))
    def check(program):
        built = describe_graph(program, torch_engine, program.run_on(torch_engine))
        expected = expected_graph(program)
        for variable, made in zip(expected["variables"], built["variables"]):
            if variable.pop("uncertain", False):   # a reshape of a non-contiguous input
                assert made["grad_fn"] is not None
                variable["grad_fn"], variable["edges"] = made["grad_fn"], made["edges"]
        assert expected == built

    check()


def test_a_partial_run_says_so_at_the_top():
    page = fake_run([PASSED], partial=["worker 'gw0' crashed while running 'x'"])
    assert "<title>autograd conformance report (PARTIAL)</title>" in page
    assert "PARTIAL RUN: worker &#39;gw0&#39; crashed while running &#39;x&#39;" in page


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """torch and a broken engine on two behaviours, with every output the CI gate offers, on a CI
    machine (the CI variable makes pytest print whole messages in its short summary)."""
    out = tmp_path_factory.mktemp("report")
    run = run_pytest("suites/test_leaves.py", "--engine", "torch",
                     "--engine", "tests.broken.hostile.script_errors", "--behaviour", "LEAF-3",
                     "--behaviour", "LEAF-1", f"--report={out / 'run.html'}",
                     f"--junitxml={out / 'junit.xml'}", env={"CI": "true"})
    return run, out


def test_the_summary_line_gives_behaviours_passed_per_engine(small_run):
    run, out = small_run
    assert run.returncode == 1, run.stdout + run.stderr
    assert "torch: 2/2 behaviours pass at level strict" in run.stdout
    assert "script-errors: 1/2 behaviours pass at level strict (1 failing)" in run.stdout
    assert f"report: {out / 'run.html'}" in run.stdout


def test_the_terminal_gives_a_line_per_failure_and_the_root_errors_not_tracebacks(small_run,
                                                                                 tmp_path):
    """By default a failing test is one line and the failures are grouped by root error; the
    tracebacks and reproducers are in the report. --tb brings them back."""
    run, _ = small_run
    assert "failures by root error, most tests first" in run.stdout
    assert re.search(r"^ +1 tests  script-errors: AssertionError: ", run.stdout, re.MULTILINE)
    assert "FAILED suites/test_leaves.py::test_results_requiring_grad_are_non_leaves" in run.stdout
    assert "Reproducer (torch script)" not in run.stdout
    assert not re.search(r"suites/test_leaves.py:\d+", run.stdout)   # no traceback
    assert "tracebacks and reproducers: in the report, or run with -v or --tb=short" in run.stdout
    verbose = run_pytest("suites/test_leaves.py", "--engine", "tests.broken.hostile.script_errors",
                         "--behaviour", "LEAF-3", "--no-report", "--tb=short")
    assert re.search(r"suites/test_leaves.py:\d+", verbose.stdout)
    assert "Reproducer (torch script)" in verbose.stdout


def test_the_json_results_carry_outcome_behaviours_engine_duration_and_reproducers(small_run):
    _, out = small_run
    data = json.loads((out / "run.json").read_text())
    assert data["run"]["level"] == "strict" and data["run"]["device"] == "cpu"
    assert data["summary"]["script-errors"]["behaviours_passed"] == 1
    assert data["behaviours"]["LEAF-3"] == {"torch": "passed", "script-errors": "failed"}
    tests = {test["nodeid"]: test for test in data["tests"]}
    failed = tests["suites/test_leaves.py::test_results_requiring_grad_are_non_leaves"
                   "[script-errors]"]
    assert failed["outcome"] == "failed" and failed["behaviours"] == ["LEAF-3"]
    assert failed["engine"] == "script-errors" and failed["duration"] > 0
    [reproducer] = failed["reproducers"]
    assert reproducer["script"].startswith("import numpy as np\nimport torch")
    assert "requires grad but is a leaf" in failed["error"]
    engine_graph, torch_graph = failed["graphs"]["engine"], failed["graphs"]["torch"]
    assert all(v["is_leaf"] is True for v in engine_graph["variables"])
    assert any(v["is_leaf"] is False and v["grad_fn"] for v in torch_graph["variables"])
    passed = tests["suites/test_leaves.py::test_created_tensors_are_leaves[torch]"]
    assert passed["outcome"] == "passed" and "reproducers" not in passed


def test_junit_xml_carries_behaviour_ids_and_the_reproducer(small_run):
    _, out = small_run
    cases = {case.get("name"): case for case in ET.parse(out / "junit.xml").iter("testcase")}
    failed = cases["test_results_requiring_grad_are_non_leaves[script-errors]"]
    properties = {p.get("name"): p.get("value") for p in failed.iter("property")}
    assert properties["behaviours"] == "LEAF-3" and properties["engine"] == "script-errors"
    assert "\nimport torch\n" in properties["reproducer"]


def test_the_html_report_shows_the_matrix_and_the_failure(small_run):
    _, out = small_run
    page = (out / "run.html").read_text()
    assert 'id="matrix"' in page and 'id="b-LEAF-3"' in page
    assert "test_results_requiring_grad_are_non_leaves[script-errors]" in page
    assert "<svg" in page and re.search(r"grad_fn: [A-Z]\w+Backward\d", page)


def test_no_report_writes_nothing(tmp_path):
    run = run_pytest("suites/test_leaves.py", "--engine", "torch", "--behaviour", "LEAF-1",
                     "--no-report", f"--junitxml={tmp_path / 'j.xml'}")
    assert run.returncode == 0
    assert "report:" not in run.stdout and sorted(p.name for p in tmp_path.iterdir()) == ["j.xml"]


def test_the_dashboard_escapes_what_engines_say_and_adds_up_chapters(tmp_path):
    """The dashboard from a JSON results file: chapter counts, the README table from the same data,
    and an engine's version and error shown as text in a page without script."""
    run, results, matrix, summaries = fake_results([PASSED, FAILED])
    path = tmp_path / "run.json"
    path.write_text(results_json(run, results, summaries, matrix))
    page = tmp_path / "dashboard.html"
    assert build_dashboard([str(path), "-o", str(page)]) == 0
    html = page.read_text()
    assert "<script" not in html and "<img" not in html
    assert "1.0&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;" in html
    assert "script-src" not in html and "default-src 'none'" in html
    engines = {engine.name: engine for engine in load_results([path])}
    assert engines["evil"].states == {"LEAF-3": "failed"}
    table = rows(list(engines.values()))
    assert table[0] == "| engine | version | core | extended | strict | skipped |"
    assert any(line.startswith("| evil | 1.0<script>") and "| 0 / 1 |" in line for line in table)


def test_the_dashboard_shows_a_known_gaps_whole_comment(tmp_path):
    """A known gap's cell gives the baseline entry's comment whole, whatever brackets and
    semicolons it holds: it comes as a field of the results, not cut out of the reason's words."""
    why = ("LEAF-3: AssertionError: v1 (exp(x0)) is a leaf; retain_grad raises (twice); "
           "judged on its 2 recorded reproducer(s")
    gap = TestRecord("suites/test_leaves.py::test_a[evil]", engine="evil", behaviours=["LEAF-3"],
                     outcome="xfailed", reason=f"baseline b.txt:3: LEAF-3 ({why}); judged on its "
                                               f"1 recorded reproducer(s)",
                     baseline={"file": "b.txt", "line": 3, "entry": "LEAF-3", "why": why,
                               "replayed": 1})
    run, results, matrix, summaries = fake_results([gap])
    path = tmp_path / "run.json"
    path.write_text(results_json(run, results, summaries, matrix))
    [reason] = load_results([path])[0].reasons["LEAF-3"]
    assert reason.why == f"known gap: {why}"
    page = tmp_path / "dashboard.html"
    assert build_dashboard([str(path), "-o", str(page)]) == 0
    assert f"known gap: {why}" in html.unescape(page.read_text())


def test_the_seed_posts_a_behaviour_cites_are_listed_in_the_report():
    """The posts are not shipped: a citation links to the report's own entry for it (title and
    what it teaches), so that nothing the report cites is missing."""
    page = fake_run([PASSED])   # LEAF-3 cites seeds/002_9dd03d232cc2502c.txt
    assert '<a href="#seed-002_9dd03d232cc2502c.txt">seeds/002_9dd03d232cc2502c.txt</a>' in page
    assert '<dt id="seed-002_9dd03d232cc2502c.txt">' in page
    assert "小白學PyTorch | 動態圖與靜態圖的淺顯理解" in page


def test_the_report_shows_where_torch_departs_for_the_behaviours_it_checked():
    record = TestRecord("suites/test_layout.py::test_x[torch]", engine="torch",
                        behaviours=["ACC-5"])
    page = fake_run([record])
    assert '<a href="#deviation-ACC-5">(where torch 2.13 departs)</a>' in page
    assert '<section class="deviation" id="deviation-ACC-5">' in page
    assert "x.view(3).backward(g)" in page
    assert "deviation-HOOK-19" not in page   # a behaviour the run did not check


def test_a_collect_only_run_writes_no_report(tmp_path):
    """--collect-only runs no test: no report, and no 'partial run' for tests it never meant to run."""
    run = run_pytest("suites/test_leaves.py", "--engine", "reference", "--collect-only", "-q",
                     f"--report={tmp_path / 'run.html'}")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "partial run" not in run.stdout and "report:" not in run.stdout
    assert not list(tmp_path.iterdir())
