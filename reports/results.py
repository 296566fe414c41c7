"""The results of a conformance run as data: one record per test, the state of every behaviour on
every engine, per-engine summaries, and the JSON results file.

Everything here is built from pytest reports (what xdist sends to the controller), read with the
runner's one reader of what a test showed (autograd_conformance/runner/evidence.py), and from the
catalog; nothing here talks to an engine (a failure's graphs come drawn with its report).

Why not pytest-reportlog for the JSON: it logs every report of every phase as it comes, which a
reader would have to fold into tests, behaviours and engines again; the results file is that fold
(one record per test, the behaviour x engine states, per-engine summaries and the run's partial and
unresponsive reasons), which tools/conformance_table.py turns into the README's table.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field

from autograd_conformance.harness.catalog import LEVELS, load_catalog
from autograd_conformance.runner import evidence
from autograd_conformance.runner.outcomes import crashed, error_text, outcome, reason, root_error

# A test's outcome, and the state of a behaviour on an engine, worst first. "error": the engine
# raised outside any check of the behaviour, so it was not judged; "unjudged": a test of the
# behaviour failed on another behaviour's check, so this one was not judged either (it never counts
# as passing with a failed test); "op_set_aside": a test of the behaviour failed after applying an
# op set aside on its engine (the op failed its own verdict, autograd_conformance/runner/
# op_verdicts.py), which may be why, so it was not judged either; "cancelled": not run because its
# engine stopped responding (autograd_conformance/runner/watchdog.py).
STATES = ("failed", "error", "unjudged", "op_set_aside", "cancelled", "xfailed", "skipped",
          "passed")
@dataclass
class TestRecord:
    __test__ = False  # not a pytest test class

    nodeid: str
    engine: str | None = None
    behaviours: list[str] = field(default_factory=list)
    level: str | None = None
    outcome: str = "passed"     # passed | failed | xfailed | xpassed | skipped | cancelled
    reason: str = ""            # skip, xfail or cancel reason; for an xpassed test, the baseline's
    duration: float = 0.0       # setup + call + teardown, seconds
    error: str = ""             # failed / xfailed: the exception line(s) as pytest shows them
    traceback: str = ""         # failed / xfailed: pytest's full failure text
    # failed / xfailed: one per distinct failure, a reproducer record (runner/evidence.py)
    reproducers: list = field(default_factory=list)
    graphs: dict | None = None  # {"engine": graph, "torch": graph}; see harness/graphs.py
    # a known gap (xfailed, xpassed, or skipped by --baseline-mode skip): the baseline entry that
    # lists it, {"file", "line", "entry", "why", "replayed"} (runner/evidence.py's Excuse)
    baseline: dict | None = None
    judged_without: list[str] = field(default_factory=list)  # set-aside ops its programs lacked
    uses_set_aside: list[str] = field(default_factory=list)  # set-aside ops it applied itself
    crashed: bool = False       # the test took its xdist worker down
    hung: bool = False          # an example ran past --test-timeout: the engine hung on its program

    @property
    def module(self) -> str:
        return self.nodeid.split("::", 1)[0]

    @property
    def failing(self) -> bool:
        """Whether the test counts against the run (xpassed: a strict expected failure passed)."""
        return self.outcome in ("failed", "xpassed")


class Results:
    """Test records in report order, fed with every `TestReport` of the run."""

    def __init__(self):
        self.records: dict[str, TestRecord] = {}

    @classmethod
    def of(cls, records: list[TestRecord]) -> Results:
        """Results holding `records` (as a run that reported them would)."""
        results = cls()
        results.records = {record.nodeid: record for record in records}
        return results

    def add_report(self, report) -> None:
        record = self.records.setdefault(report.nodeid, TestRecord(report.nodeid))
        shown = evidence.read(report)
        record.engine = shown.engine or record.engine
        record.behaviours = shown.behaviours if shown.behaviours is not None else record.behaviours
        record.level = shown.level if shown.level is not None else record.level
        if shown.judged_without is not None:
            record.judged_without = shown.judged_without
        if shown.uses_set_aside is not None:
            record.uses_set_aside = shown.uses_set_aside
        for found in shown.reproducers:
            if all(found["script"] != known["script"] for known in record.reproducers):
                record.reproducers.append(found)
        record.graphs = shown.graphs or record.graphs
        record.hung = record.hung or shown.hung
        if shown.excuse is not None:
            record.baseline = asdict(shown.excuse)
        record.duration += report.duration or 0.0
        record.crashed = record.crashed or crashed(report)
        kind = outcome(report)
        if kind == "xpassed":
            record.outcome, record.reason = kind, reason(report)
        elif kind == "failed" and record.outcome != "failed":
            record.outcome = kind
            record.error, record.traceback = error_text(report)
        elif kind in ("xfailed", "skipped") and record.outcome == "passed":
            record.outcome, record.reason = kind, reason(report)
            if kind == "xfailed":
                record.error, record.traceback = error_text(report)
            elif shown.not_run is not None:
                record.outcome = "cancelled"

    def drop(self, nodeids: list[str]) -> None:
        """Forget the tests whose run was cut short (an interrupted run)."""
        for nodeid in nodeids:
            self.records.pop(nodeid, None)


# -- behaviours ---------------------------------------------------------------------------------
def behaviour_states(record: TestRecord) -> dict[str, str]:
    """The state of each of the test's behaviours by this test alone. A failed test fails the
    behaviours whose checks failed (a check that names no behaviour is the test's, all of them);
    where the engine raised outside any check, the others are "error" (not judged); where only
    other behaviours' checks failed, "unjudged": their checks may never have run, so a failed test
    never passes a behaviour. A failure that left no reproducer (a crash, a time-out, the test's
    own code) fails them all. A failed test that applied an op set aside on its engine judges none
    of them ("op_set_aside"): that op, which failed its own verdict, may be why it failed."""
    outcome = record.outcome
    if outcome == "xpassed":
        outcome = "passed"          # a strict expected failure that passed: the engine conforms
    elif outcome == "skipped" and record.baseline is not None:
        outcome = "xfailed"         # a known gap, not run (--baseline-mode skip)
    if outcome == "failed" and record.uses_set_aside:
        return dict.fromkeys(record.behaviours, "op_set_aside")
    if outcome != "failed" or not record.reproducers:
        return {behaviour: outcome for behaviour in record.behaviours}
    checks = [found for found in record.reproducers if found.get("check")]
    failed = {found["behaviour"] for found in checks}
    raised = any(not found.get("check") for found in record.reproducers)
    return {behaviour: "failed" if None in failed or behaviour in failed
            else "error" if raised else "unjudged" for behaviour in record.behaviours}


def first_error(record: TestRecord, behaviour: str | None = None) -> str:
    """The first distinct error of a failing test (of `behaviour`'s checks, where it has one;
    else the other behaviour's check that failed, named)."""
    for found in record.reproducers:
        if behaviour is None or found.get("behaviour") in (None, behaviour):
            return found.get("error") or ""
    for found in record.reproducers:
        return f"not judged, {found.get('behaviour')}'s check failed: {found.get('error') or ''}"
    return (record.error.splitlines() or [""])[0]


def set_aside_use(ops: list[str]) -> str:
    """Why a failed test that applied the set-aside `ops` judges none of its behaviours."""
    if len(ops) == 1:
        return f"uses op {ops[0]}, set aside (it failed its own verdict)"
    return f"uses ops {', '.join(ops)}, set aside (each failed its own verdict)"


@dataclass
class Cell:
    """The state of one behaviour on one engine, and the tests that decide it."""
    behaviour: str = ""
    state: str = "notrun"       # one of STATES, or notrun
    tests: list[TestRecord] = field(default_factory=list)

    @property
    def detail(self) -> str:
        """One line per test: its outcome and, where there is one, why."""
        lines = []
        for test in self.tests:
            why = test.reason or self._error(test)
            without = (f" (judged without the ops set aside: {', '.join(test.judged_without)})"
                       if test.judged_without else "")
            lines.append(f"{test.nodeid.split('::', 1)[-1]}: "
                         f"{behaviour_states(test).get(self.behaviour, test.outcome)}{without}"
                         + (f" - {why}" if why else ""))
        return "\n".join(lines)

    @property
    def error(self) -> str:
        """The first distinct error of the tests that fail (or error) here."""
        bad = next((test for test in self.tests
                    if behaviour_states(test).get(self.behaviour) in ("failed", "error", "unjudged",
                                                                      "op_set_aside")), None)
        return self._error(bad) if bad is not None else ""

    def _error(self, test: TestRecord) -> str:
        """`test`'s first distinct error here; first, where it left the behaviour unjudged, the
        set-aside ops it applied."""
        if behaviour_states(test).get(self.behaviour) == "op_set_aside":
            return f"{set_aside_use(test.uses_set_aside)}: {first_error(test)}"
        return first_error(test, self.behaviour)


def cell_state(tests: list[TestRecord], behaviour: str) -> str:
    """A behaviour passes on an engine when all its tests pass it there (a strict expected failure
    that passed counts as passing: the engine conforms); a test failing its checks makes it fail;
    one where the engine raised outside its checks, error; one that failed on another behaviour's
    check, unjudged; one that failed after applying a set-aside op, op_set_aside; a known gap (an
    expected failure, or a test skipped by the baseline) makes it xfail; a test not run because
    the run gave its engine up makes it cancelled; any other skip, skipped."""
    if not tests:
        return "notrun"
    states = {behaviour_states(test).get(behaviour, test.outcome) for test in tests}
    return next(state for state in STATES if state in states)


def behaviour_matrix(results: Results, engines: list[str]) -> dict[str, dict[str, Cell]]:
    """behaviour ID -> engine name -> Cell, for every behaviour some test of the run checked."""
    matrix: dict[str, dict[str, Cell]] = {}
    for record in results.records.values():
        for behaviour in record.behaviours:
            row = matrix.setdefault(behaviour, {engine: Cell(behaviour) for engine in engines})
            row.setdefault(record.engine, Cell(behaviour)).tests.append(record)
    for row in matrix.values():
        for cell in row.values():
            cell.state = cell_state(cell.tests, cell.behaviour)
    catalog = list(load_catalog().behaviours)
    return dict(sorted(matrix.items(),
                       key=lambda kv: catalog.index(kv[0]) if kv[0] in catalog else len(catalog)))


@dataclass
class EngineSummary:
    engine: str
    passed: int = 0             # behaviours whose every test passed
    total: int = 0              # behaviours with at least one test on this engine
    states: Counter = field(default_factory=Counter)
    by_level: dict[str, tuple[int, int]] = field(default_factory=dict)  # level -> (passed, total)
    tests: Counter = field(default_factory=Counter)                    # test outcome -> count
    unresponsive: str = ""      # why the run gave the engine up, if it did
    hung: int = 0               # tests where the engine hung (each failed on its own program)
    crashed: int = 0            # tests that took their worker down

    @property
    def extra(self) -> str:
        """How the behaviours that do not pass are split: "2 failing, 1 known gaps"."""
        return ", ".join(f"{self.states[s]} {label}" for s, label in
                         (("failed", "failing"), ("error", "not judged: the engine raised"),
                          ("unjudged", "not judged: another behaviour's check failed first"),
                          ("op_set_aside", "not judged: the test uses an op set aside"),
                          ("cancelled", "not run"),
                          ("xfailed", "known gaps"), ("skipped", "skipped")) if self.states[s])

    def line(self, level: str) -> str:
        extra = self.extra
        faults = ", ".join(f"{n} {kind}" for n, kind in ((self.hung, "hung"),
                                                           (self.crashed, "crashed")) if n)
        return (f"{self.engine}: {self.passed}/{self.total} behaviours pass at level {level}"
                + (f" ({extra})" if extra else "")
                + (f"; tests that {faults}" if faults else "")
                + ("; UNRESPONSIVE" if self.unresponsive else ""))


def engine_summaries(results: Results, engines: list[str], matrix: dict[str, dict[str, Cell]],
                     unresponsive: dict[str, str] | None = None) -> dict[str, EngineSummary]:
    catalog = load_catalog().behaviours
    summaries = {engine: EngineSummary(engine, unresponsive=(unresponsive or {}).get(engine, ""))
                 for engine in engines}
    for record in results.records.values():
        if record.engine in summaries:
            summary = summaries[record.engine]
            summary.tests[record.outcome] += 1
            summary.hung += record.hung
            summary.crashed += record.crashed
    for behaviour, row in matrix.items():
        level = catalog[behaviour].level if behaviour in catalog else None
        for engine, cell in row.items():
            summary = summaries.get(engine)
            if summary is None or cell.state == "notrun":
                continue
            summary.total += 1
            summary.states[cell.state] += 1
            summary.passed += cell.state == "passed"
            if level:
                passed, total = summary.by_level.get(level, (0, 0))
                summary.by_level[level] = (passed + (cell.state == "passed"), total + 1)
    for summary in summaries.values():
        summary.by_level = {level: summary.by_level[level] for level in LEVELS
                            if level in summary.by_level}
    return summaries


@dataclass
class ErrorGroup:
    """Reproducers of one engine that fail with the same root error, across tests."""
    engine: str
    error: str                  # the first of them, as it was
    reproducers: int = 0
    tests: list[str] = field(default_factory=list)


def error_groups(results: Results) -> list[ErrorGroup]:
    """The failing tests' reproducers grouped by engine and root error, the largest group first:
    what an engine author fixes first."""
    groups: dict[tuple, ErrorGroup] = {}
    for record in results.records.values():
        if record.outcome != "failed":
            continue
        for found in record.reproducers or [{"error": first_error(record)}]:
            error = found.get("error") or "failed"
            group = groups.setdefault((record.engine, root_error(error)),
                                      ErrorGroup(record.engine or "", error))
            group.reproducers += 1
            if record.nodeid not in group.tests:
                group.tests.append(record.nodeid)
    return sorted(groups.values(), key=lambda g: (-len(g.tests), -g.reproducers, g.engine))


def module_durations(results: Results) -> dict[str, float]:
    durations: Counter = Counter()
    for record in results.records.values():
        durations[record.module] += record.duration
    return dict(durations)


# -- the JSON results file ----------------------------------------------------------------------
def results_json(run: dict, results: Results, summaries: dict[str, EngineSummary],
                 matrix: dict[str, dict[str, Cell]]) -> str:
    tests = []
    for record in results.records.values():
        entry = {key: value for key, value in asdict(record).items() if key != "graphs"}
        if not (record.failing or record.outcome == "xfailed"):
            for key in ("error", "traceback", "reproducers"):
                entry.pop(key)
        entry["graphs"] = record.graphs if record.outcome in ("failed", "xfailed") else None
        tests.append(entry)
    data = {
        "run": run,
        "summary": {engine: {"behaviours_passed": s.passed, "behaviours_total": s.total,
                             "behaviour_states": dict(s.states),
                             "by_level": {lvl: {"passed": p, "total": t}
                                          for lvl, (p, t) in s.by_level.items()},
                             "tests": dict(s.tests), "hung": s.hung, "crashed": s.crashed,
                             "unresponsive": s.unresponsive or None}
                    for engine, s in summaries.items()},
        "behaviours": {behaviour: {engine: cell.state for engine, cell in row.items()}
                       for behaviour, row in matrix.items()},
        "tests": tests,
    }
    return json.dumps(data, indent=1, default=str)

