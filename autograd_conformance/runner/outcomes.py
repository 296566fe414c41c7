"""What a pytest report says, read in one place: pytest and xdist spell outcomes in several ways
(a strict expected failure that passed is a failure whose text starts with `[XPASS(strict)]`, an
expected failure is a skip with `wasxfail`, a skip's reason sits in a tuple behind `Skipped: `,
a crashed worker's test is reported in the phase `???`), and the baseline, the results and the
report plugin all need the same answers."""

from __future__ import annotations

import re

_XPASS_STRICT = "[XPASS(strict)]"
# Where hypothesis' notes (falsifying example, reproducer, explanation) start in a message.
_HYPOTHESIS_NOTES = re.compile(r"\n(?=Falsifying example:|Failing test case:|Draw 1|Explanation:)")


def outcome(report) -> str:
    """passed | failed | xfailed | xpassed (a strict expected failure that passed) | skipped."""
    if report.failed:
        return "xpassed" if str(report.longrepr).startswith(_XPASS_STRICT) else "failed"
    if report.skipped:
        return "xfailed" if hasattr(report, "wasxfail") else "skipped"
    return "passed"


def reason(report) -> str:
    """Why a test was skipped, expected to fail, or (xpassed) expected to fail but passed."""
    kind = outcome(report)
    if kind == "xfailed":
        return report.wasxfail
    if kind == "xpassed":
        return str(report.longrepr).removeprefix(_XPASS_STRICT).strip()
    if kind == "skipped":
        if isinstance(report.longrepr, tuple):
            return str(report.longrepr[2]).removeprefix("Skipped: ")
        return str(report.longrepr or "")
    return ""


def crashed(report) -> bool:
    """Whether xdist made this report because the worker running the test died."""
    return report.when == "???"


def error_text(report) -> tuple[str, str]:
    """The exception as pytest's one-line summary shows it (with the rest of its message, without
    hypothesis' notes), and the full failure text."""
    crash = getattr(report.longrepr, "reprcrash", None)
    full = report.longreprtext if report.longrepr is not None else ""
    message = crash.message if crash is not None else str(report.longrepr or "")
    return _HYPOTHESIS_NOTES.split(message, maxsplit=1)[0].rstrip(), full


def first_error_line(report) -> str:
    """The first line of a report's error: `Type: message` where pytest shows it."""
    lines = [line.strip() for line in error_text(report)[0].splitlines() if line.strip()]
    return lines[0] if lines else "failed"


def root_error(error: str) -> str:
    """What errors that differ only in the program share: variable names (x0, v3), numbers and
    the contents of brackets (a tensor's values) left out."""
    text = re.sub(r"\b([xv])\d+\b", r"\1", error)
    while _INNERMOST_BRACKETS.search(text):
        text = _INNERMOST_BRACKETS.sub("[…]", text)
    return re.sub(r"-?\d+(\.\d*)?(e[-+]?\d+)?", "#", text)


_INNERMOST_BRACKETS = re.compile(r"\[[^\[\]]*[^\[\]…][^\[\]]*\]")  # [...] not yet [...]
