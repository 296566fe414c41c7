"""The conformance report plugin, on the controller (or the only process): the summary line per
engine, and the HTML and JSON reports written at the end of every conformance run.

Options: `--report PATH` (default reports/conformance.html; relative paths are relative to the
directory pytest runs in, like every file option), `--no-report`, `--json-report PATH` (default:
next to the HTML report, .json). What each test showed comes with its report, attached by the
runner in the process that ran it (autograd_conformance/runner/evidence.py), and why the run is
partial from the runner too (runner/completeness.py): this room reads both and attaches nothing.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import platform
import sys
import time
from pathlib import Path

import hypothesis

from autograd_conformance.harness.catalog import LEVELS
from autograd_conformance.reports.html import render_report
from autograd_conformance.reports.results import (
    Results,
    behaviour_matrix,
    engine_summaries,
    error_groups,
    module_durations,
    results_json,
)
from autograd_conformance.runner import completeness
from autograd_conformance.runner.op_verdicts import made_verdicts
from autograd_conformance.runner.plugin import described_engines
from autograd_conformance.runner.watchdog import unresponsive_engines

TERMINAL_GROUPS = 20     # root errors listed in the terminal summary
ERROR_WIDTH = 100        # characters of each


def pytest_configure(config):
    """On the controller of a run that runs tests (`--collect-only` runs none: no report)."""
    if not hasattr(config, "workerinput") and not config.option.collectonly:
        config.pluginmanager.register(ConformanceReport(config), "autograd-conformance-report")


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

    def pytest_sessionfinish(self, session, exitstatus):
        engines = [engine["name"] for engine in described_engines(self.config)]
        shortfalls = completeness.shortfalls(session)
        self.results.drop([shortfall.nodeid for shortfall in shortfalls if shortfall.nodeid])
        # an engine given up on is shown as unresponsive rather than as a partial run
        self.partial = [shortfall.text for shortfall in shortfalls
                        if shortfall.kind != completeness.NOT_RUN]
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
            torch_version = importlib.metadata.version("torch")   # read, not imported
        except importlib.metadata.PackageNotFoundError:
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
            "engines": [{**engine,
                         "set_aside_ops": verdicts.get(engine["name"], {}).get("set_aside", {}),
                         "ops_not_judged": verdicts.get(engine["name"], {}).get("not_judged", "")}
                        for engine in described_engines(config)],
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
