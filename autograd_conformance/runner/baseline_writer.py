"""`--write-baseline FILE`: the failing tests of a complete run written as a baseline, with their
evidence beside it (the format and what a baseline does: baseline.py). Only from a complete run
(runner/completeness.py says why a run is not), unless `--partial-baseline`, which writes it marked
partial. With `--baseline OLD` too, the run ends with the lines the new baseline adds to OLD and
those it drops.
"""

from __future__ import annotations

import datetime

import pytest

from . import completeness
from .baseline import listed_entries, matches, recorded_evidence, write_evidence
from .evidence import read, record
from .outcomes import first_error_line, outcome, root_error
from .plugin import suite_nodeid


def pytest_configure(config):
    if config.getoption("write_baseline") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(BaselineWriter(config), "autograd-baseline-writer")


def what_failed(report) -> str:
    """A baseline entry's comment: for each distinct failure, the behaviour whose check failed (or
    that the engine raised outside any check) and its error; distinct by root error."""
    shown = read(report)
    behaviours, found = shown.behaviours or [], shown.reproducers
    if not found:
        return first_error_line(report)
    parts, seen = [], set()
    for each in found:
        if each["check"]:
            what = each["behaviour"] or "/".join(behaviours) or "check"
        else:
            what = f"{'/'.join(behaviours)} not judged, the engine raised outside any check"
        key = (what, root_error(each["error"]))
        if key not in seen:
            seen.add(key)
            parts.append(f"{what}: {each['error']}")
    return "; ".join(parts)


# The exit status of a run whose baseline was not written because the run was incomplete.
INCOMPLETE_RUN = 6


class BaselineWriter:
    """Collects the failing tests of the run (on the xdist controller, if any) and writes them,
    with their evidence; only from a complete run (runner/completeness.py), unless
    --partial-baseline."""

    def __init__(self, config):
        self.config = config
        self.failures: dict[str, str] = {}  # nodeid -> why, in report order
        self.evidence: dict[str, list[dict]] = {}   # nodeid -> its reproducers
        self.behaviours: dict[str, list[str]] = {}  # nodeid -> the behaviours it checks
        self.incomplete: list[str] = []             # why the run was incomplete, if it was

    def pytest_runtest_logreport(self, report):
        nodeid = suite_nodeid(self.config, report)
        if nodeid in self.failures:
            return
        shown = read(report)
        self.behaviours[nodeid] = shown.behaviours or []
        why = shown.unstable
        kind = outcome(report)
        if kind == "failed" or (shown.excuse is not None and kind == "xfailed") or why is not None:
            self.failures[nodeid] = what_failed(report) + (f"; unstable: {why}" if why else "")
            self.evidence[nodeid] = shown.reproducers
        elif shown.excuse is not None and kind == "skipped":
            self.failures[nodeid] = "not run (--baseline-mode skip); kept from the old " \
                                    + shown.excuse.reason
            old = recorded_evidence(self.config).get(nodeid, [])
            self.evidence[nodeid] = [record(each) for each in old]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session):
        config = self.config
        path = config.invocation_params.dir / config.getoption("write_baseline")
        self.incomplete = [shortfall.text for shortfall in completeness.shortfalls(session)
                           if shortfall.kind != completeness.CRASHED]
        partial = config.getoption("partial_baseline")
        if self.incomplete and not partial:
            if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
                session.exitstatus = INCOMPLETE_RUN
            return
        lines = [f"# autograd-conformance baseline, written by --write-baseline on "
                 f"{datetime.date.today().isoformat()} (level {config.getoption('level')})",
                 "# One known gap per line; the matching rules are in docs/ci-workflow.md."]
        if self.incomplete:
            lines.append(f"# PARTIAL (--partial-baseline): written from an incomplete run: "
                         f"{'; '.join(self.incomplete)}. Tests that did not run are not listed.")
        lines += [f"{nodeid}  # {why}" for nodeid, why in self.failures.items()]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        write_evidence(path, self.evidence)

    def pytest_terminal_summary(self, terminalreporter):
        """Why no baseline was written, or, with --baseline too, what the new baseline adds to
        the old and drops from it."""
        if self.incomplete and not self.config.getoption("partial_baseline"):
            terminalreporter.write_sep("-", "baseline not written", red=True)
            terminalreporter.write_line(
                f"--write-baseline {self.config.getoption('write_baseline')}: not written, the "
                f"run was incomplete: {'; '.join(self.incomplete)}. A baseline lists the gaps of "
                f"a complete run; see --unresponsive-after to judge every test, or add "
                f"--partial-baseline to write this one, marked partial (exit status "
                f"{INCOMPLETE_RUN}).", red=True)
            return
        old = listed_entries(self.config)
        if old is None:
            return
        def listed(nodeid, entries):
            return any(matches(entry, nodeid, self.behaviours.get(nodeid, [])) for entry in entries)
        added = [nodeid for nodeid in self.failures if not listed(nodeid, [e.text for e in old])]
        dropped = [entry.text for entry in old
                   if not any(listed(nodeid, [entry.text]) for nodeid in self.failures)]
        terminalreporter.write_sep("-", f"baseline changes: {len(added)} added, "
                                        f"{len(dropped)} dropped")
        for nodeid in added:
            terminalreporter.write_line(f"+ {nodeid}  # {self.failures[nodeid]}")
        for text in dropped:
            terminalreporter.write_line(f"- {text}")
