"""The conformance report plugin: per-test metadata for JUnit XML and the controller, the summary
line per engine, and the HTML and JSON reports written at the end of every conformance run.

Options: `--report PATH` (default reports/conformance.html; relative paths are relative to the
directory pytest runs in, like every file option), `--no-report`, `--json-report PATH` (default:
next to the HTML report, .json). Under xdist, workers attach what the controller needs to
their reports (`user_properties`: engine, behaviours, level, and for failures the reproducers (one per
distinct failure, from the notes that autograd_conformance/harness/script.py puts on the exception) and the
counterexample's graph on the engine and on torch); only the controller writes files.
"""

from __future__ import annotations

import datetime
import platform
import sys
import time
from pathlib import Path

import hypothesis
import pytest

from ..harness.catalog import LEVELS
from ..harness.script import error_line, reproducers
from ..runner.op_verdicts import made_verdicts
from ..runner.outcomes import outcome
from ..runner.plugin import LAST_SCRIPT, behaviour_ids, item_engine, item_level, selected_engines
from ..runner.robustness import TimeLimitExceeded, time_limit
from ..runner.watchdog import Terminated, journaled_tests, unresponsive_engines
from .html import render_report
from .results import (
    Results,
    behaviour_matrix,
    describe_graph,
    engine_summaries,
    error_groups,
    expected_graph,
    module_durations,
    results_json,
)

GRAPH_TIME_LIMIT = 10.0  # seconds to read a counterexample's graph from an engine's tensors
TERMINAL_GROUPS = 20     # root errors listed in the terminal summary
ERROR_WIDTH = 100        # characters of each


def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(ConformanceReport(config), "autograd-conformance-report")


# -- in the process that runs the test (an xdist worker, or the only process) --------------------
@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    engine = item_engine(item)
    if engine is not None and call.when == "setup":
        item.user_properties += [("engine", engine.name),
                                 ("behaviours", " ".join(behaviour_ids(item))),
                                 ("level", item_level(item) or "")]
    report = yield
    if call.when != "call":
        return report
    script = item.stash.get(LAST_SCRIPT, None)
    item.stash[LAST_SCRIPT] = None
    if engine is None or outcome(report) not in ("failed", "xfailed"):
        return report
    failure = call.excinfo.value if call.excinfo else None
    found = [reproducer.as_dict() for reproducer in reproducers(failure)]
    if not found and script is not None:   # the failure is outside the script's steps
        text = script.text()
        found = [{"behaviour": None, "script": text, "check": False,
                  "error": error_line(failure), "line": text.count("\n")}]
    for reproducer in found:
        report.user_properties.append(("reproducer", reproducer))
        item.user_properties.append(("reproducer", reproducer["script"]))  # for JUnit XML
    if script is not None and script.program is not None:
        report.user_properties.append(("graphs", counterexample_graphs(script, engine)))
    return report


def counterexample_graphs(script, engine) -> dict:
    """The counterexample's graph as the engine built it in the failing example, and as torch
    builds it (by the catalog's rules: no second engine is loaded or run)."""
    tensors = {name: script.names[name] for name in script.program.variables()
               if name in script.names}
    try:
        with time_limit(GRAPH_TIME_LIMIT):
            built = describe_graph(script.program, engine, tensors)
    except TimeLimitExceeded:
        built = {"variables": [], "error": f"reading the graph took over {GRAPH_TIME_LIMIT:g} s"}
    return {"engine": built, "torch": expected_graph(script.program)}


# -- on the controller ---------------------------------------------------------------------------
class ConformanceReport:
    """Collects every report of the run; writes the HTML and JSON reports at the end."""

    def __init__(self, config):
        self.config = config
        self.results = Results()
        self.started = datetime.datetime.now().astimezone()
        self.clock = time.monotonic()
        self.partial: list[str] = []
        self.summary_lines: list[str] = []
        self.groups: list = []      # the failing tests' errors by engine and root error
        self.written: list[Path] = []

    def pytest_runtest_logreport(self, report):
        self.results.add_report(report)

    def pytest_keyboard_interrupt(self, excinfo):
        cause = "SIGTERM" if excinfo.errisinstance(Terminated) else "Ctrl-C / SIGINT"
        self.partial.append(f"interrupted ({cause}): the tests after it did not run")

    def pytest_sessionfinish(self, session, exitstatus):
        config = self.config
        engines = [engine.name for engine in selected_engines(config)]
        if session.shouldstop and not self.partial:
            self.partial.append(f"stopped early: {session.shouldstop}")
        if session.shouldfail:
            self.partial.append(f"stopped early: {session.shouldfail}")
        self.partial += [f"{crash}; it is reported as failed, the run went on in a new worker"
                         for crash in self.results.crashes]
        unfinished = self.results.drop_unfinished()
        if any(reason.startswith("interrupted (") for reason in self.partial):
            # a test interrupted before its first report (in its setup) left only its journal
            unfinished += [nodeid for nodeid in journaled_tests(config) if nodeid
                           and nodeid not in self.results.records and nodeid not in unfinished]
        self.partial += [f"interrupted while running {nodeid}" for nodeid in unfinished]
        missing = session.testscollected - len(self.results.records)
        if missing > 0:
            self.partial.append(f"{missing} of {session.testscollected} selected tests have "
                                f"no result")
        matrix = behaviour_matrix(self.results, engines)
        run = self.run_info(session.exitstatus)
        summaries = engine_summaries(self.results, engines, matrix, run["unresponsive"])
        lacking = {e["name"]: e["missing_ops"] for e in run["engines"] if e["missing_ops"]}
        aside = {e["name"]: e["set_aside_ops"] for e in run["engines"] if e["set_aside_ops"]}
        self.summary_lines = [summary.line(run["level"])
                              + (f"; lacks ops {', '.join(lacking[name])}" if name in lacking else "")
                              + (f"; ops set aside (each failed its own verdict): "
                                 f"{', '.join(aside[name])}" if name in aside else "")
                              for name, summary in summaries.items()]
        self.groups = error_groups(self.results)
        html_path, json_path = self.paths()
        if html_path:
            self._write(html_path, render_report(run, self.results, matrix, summaries,
                                                 module_durations(self.results), self.groups))
        if json_path:
            self._write(json_path, results_json(run, self.results, summaries, matrix))

    def _write(self, path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        self.written.append(path)

    def paths(self) -> tuple[Path | None, Path | None]:
        config = self.config
        here = config.invocation_params.dir
        json_option = config.getoption("json_report")
        json_path = here / json_option if json_option else None
        if config.getoption("no_report"):
            return None, json_path
        report_option = config.getoption("report")
        html_path = here / (report_option or "reports/conformance.html")
        return html_path, json_path or html_path.with_suffix(".json")

    def run_info(self, exitstatus) -> dict:
        config = self.config
        try:
            import torch
            torch_version = torch.__version__
        except ImportError:
            torch_version = None
        profile = config.getoption("hypothesis_profile", None) or \
            hypothesis.settings.get_current_profile_name()
        seed = config.getoption("hypothesis_seed", None)
        if seed is None:
            seed = ("derandomized (fixed per test)" if hypothesis.settings().derandomize
                    else "random (printed with each failure)")
        workers = getattr(config.option, "numprocesses", None)
        verdicts = made_verdicts(config)
        return {
            "date": self.started.isoformat(timespec="seconds"),
            "duration_s": round(time.monotonic() - self.clock, 2),
            "engines": [{"name": e.name, "version": e.version, "spec": e.spec,
                         "capabilities": sorted(e.capabilities),
                         "missing_ops": sorted(e.missing_ops),
                         "set_aside_ops": verdicts.get(e.name, {}).get("set_aside", {}),
                         "ops_not_judged": verdicts.get(e.name, {}).get("not_judged", "")}
                        for e in selected_engines(config)],
            "torch": torch_version,
            "hypothesis": f"{hypothesis.__version__}, profile {profile}, seed {seed}",
            "level": config.getoption("level"),
            "levels": list(LEVELS),
            "device": config.getoption("device"),
            "behaviours_selected": config.getoption("behaviour") or [],
            "baseline": (f"{config.getoption('baseline')} (mode {config.getoption('baseline_mode')})"
                         if config.getoption("baseline", None) else None),
            "test_timeout_s": config.getoption("test_timeout", None),
            "workers": workers or 0,
            "command": " ".join([Path(sys.executable).name, "-m", "pytest",
                                 *config.invocation_params.args]),
            "python": platform.python_version(),
            "exit_status": int(exitstatus),
            "partial": self.partial,
            "unresponsive": unresponsive_engines(config),
        }

    def pytest_terminal_summary(self, terminalreporter):
        fixed = [record for record in self.results.records.values() if record.outcome == "xpassed"]
        if fixed:
            terminalreporter.section("known gaps that now pass: XPASS(strict), delete their "
                                     "baseline lines")
            for record in fixed:
                terminalreporter.write_line(f"{record.nodeid}  ({record.reason})")
        if self.groups:
            terminalreporter.section("failures by root error, most tests first")
            for group in self.groups[:TERMINAL_GROUPS]:
                error = " ".join(group.error.split())
                terminalreporter.write_line(
                    f"{len(group.tests):3} tests  {group.engine}: {error[:ERROR_WIDTH]}"
                    + ("..." if len(error) > ERROR_WIDTH else ""))
            if len(self.groups) > TERMINAL_GROUPS:
                terminalreporter.write_line(f"... and {len(self.groups) - TERMINAL_GROUPS} more "
                                            f"root errors in the report")
            if self.config.option.tbstyle == "no":
                terminalreporter.write_line("tracebacks and reproducers: in the report, or run "
                                            "with -v or --tb=short")
        terminalreporter.section("autograd conformance")
        for line in self.summary_lines:
            terminalreporter.write_line(line)
        for reason in self.partial:
            terminalreporter.write_line(f"partial run: {reason}", red=True)
        for path in self.written:
            terminalreporter.write_line(f"report: {path}")
