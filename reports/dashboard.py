"""The conformance dashboard: the JSON results of several conformance runs as one static,
self-contained HTML page, engines (with versions) against the catalog's chapters and behaviours.

    python -m autograd_conformance.reports.dashboard RESULTS.json ... [-o reports/dashboard.html]

Each cell is pass, FAIL, known gap, skipped or not run, with the reasons (the skip reason, the
first line of the error, the baseline entry's comment, whole: a field of the results) and a link
to the behaviour's row in the report of that engine's run (the .html beside the .json, when it
exists). A chapter row adds up its behaviours per engine. The page has no script and loads
nothing; its Content-Security-Policy says so. It is rendered by a Jinja2 template with
autoescaping: every string from a run (an engine's name, version or error) is text.

`EngineResult` and `load_results` are the data the README's table is printed from too
(tools/conformance_table.py), so the two cannot disagree.
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from autograd_conformance.harness.catalog import LEVELS, load_catalog
from autograd_conformance.reports.html import STATE_LABELS
from autograd_conformance.reports.render import environment
from autograd_conformance.reports.results import set_aside_use


@dataclass(frozen=True)
class Reason:
    """Why one test of a behaviour did not pass on an engine."""
    test: str
    outcome: str
    why: str

    def __str__(self) -> str:
        return f"{self.test}: {self.outcome}" + (f" - {self.why}" if self.why else "")


def _why(test: dict) -> str:
    """The reason in a few words: a known gap's baseline comment, whole, a skip reason, or the
    error's first line (after the set-aside ops a failed test applied)."""
    reason = test["reason"]
    listed = test.get("baseline")
    if listed is not None:
        return "known gap" + (f": {listed['why']}" if listed["why"] else "")
    error = (test.get("error") or "").split("\n")[0]
    if test["outcome"] == "failed" and test.get("uses_set_aside"):
        error = f"{set_aside_use(test['uses_set_aside'])}: {error}"
    return reason or error


@dataclass
class EngineResult:
    """One engine's part of one run's results."""
    name: str
    version: str
    results_path: Path
    report_path: Path | None          # the run's HTML report, if it is beside the JSON
    run: dict                         # the run's metadata (date, profile, level, baseline, ...)
    summary: dict                     # behaviours passed / total, by level, states
    states: dict[str, str] = field(default_factory=dict)      # behaviour ID -> state
    reasons: dict[str, list[Reason]] = field(default_factory=dict)  # ID -> why it did not pass

    def by_level(self, level: str) -> tuple[int, int]:
        counts = self.summary["by_level"].get(level, {"passed": 0, "total": 0})
        return counts["passed"], counts["total"]

    @property
    def skipped(self) -> int:
        return self.summary["behaviour_states"].get("skipped", 0)


def load_results(paths: list[Path]) -> list[EngineResult]:
    """Every engine of every results file, in the order given."""
    engines = []
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        report = path.with_suffix(".html")
        for engine in data["run"]["engines"]:
            name = engine["name"]
            result = EngineResult(name, engine["version"], path,
                                  report if report.exists() else None, data["run"],
                                  data["summary"][name])
            result.states = {behaviour: row[name] for behaviour, row in data["behaviours"].items()
                             if name in row}
            for test in data["tests"]:
                if test["engine"] == name and test["outcome"] not in ("passed", "xpassed"):
                    for behaviour in test["behaviours"]:
                        result.reasons.setdefault(behaviour, []).append(Reason(
                            test["nodeid"].split("::", 1)[-1], test["outcome"], _why(test)))
            engines.append(result)
    return engines


@dataclass
class Chapter:
    title: str
    behaviours: list          # catalog Behaviour entries that some run checked
    counts: dict[str, tuple[int, int]]   # engine column -> (passed, checked)


def chapters(engines: list[EngineResult]) -> list[Chapter]:
    catalog = load_catalog()
    checked = {behaviour for engine in engines for behaviour in engine.states}
    result = []
    for area, title in catalog.areas.items():
        behaviours = [b for b in catalog.behaviours.values() if b.area == area and b.id in checked]
        if not behaviours:
            continue
        counts = {}
        for column, engine in enumerate(engines):
            states = [engine.states[b.id] for b in behaviours if b.id in engine.states]
            counts[column] = (states.count("passed"), len(states))
        result.append(Chapter(title, behaviours, counts))
    return result


def render(engines: list[EngineResult], output: Path) -> str:
    links = [_relative(engine.report_path, output.parent) if engine.report_path else None
             for engine in engines]
    return environment().get_template("dashboard.html.j2").render(
        engines=engines, links=links, chapters=chapters(engines), levels=LEVELS,
        labels=STATE_LABELS, runs=len({engine.results_path for engine in engines}))


def _relative(path: Path, start: Path) -> str:
    return Path(os.path.relpath(path.resolve(), start.resolve())).as_posix()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the conformance dashboard from the JSON "
                                                 "results of conformance runs.")
    parser.add_argument("results", nargs="+", type=Path, help="JSON results files")
    parser.add_argument("-o", "--output", type=Path, default=Path("reports/dashboard.html"))
    args = parser.parse_args(argv)
    output = args.output
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(render(load_results(args.results), output), encoding="utf-8")
    print(f"dashboard: {output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
