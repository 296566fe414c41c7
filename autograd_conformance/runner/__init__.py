"""The pytest side of a conformance run: engines as test parameters, levels and behaviour
selection (`plugin`), the baseline of known gaps (`baseline`) and its writer (`baseline_writer`),
the time limit (`robustness`), each test's engine state checked and put back (`isolation`), both
around each example (`examples`), broken ops judged once and set aside (`op_verdicts`), bounded
runs whatever the engine does (`watchdog`), shrinking shared out over the run (`shrinking`), tests
that both pass and fail (`stability`), failures' reproducers without dead lines (`dead_lines`),
what a report says (`outcomes`), what each test showed, in one shape (`evidence`) attached to its
report in the worker (`attach`), and why a run is partial (`completeness`).

The entry point (autograd_conformance/pytest_plugin.py) starts it only in a conformance run
(`start`), and registers the report room (reports/) beside it; the runner never imports the report
room, and the library (autograd_conformance/harness) never imports the runner.
"""

from __future__ import annotations

PLUGINS = ("autograd_conformance.runner.plugin", "autograd_conformance.runner.baseline",
           "autograd_conformance.runner.baseline_writer",
           "autograd_conformance.runner.robustness", "autograd_conformance.runner.isolation",
           "autograd_conformance.runner.watchdog", "autograd_conformance.runner.op_verdicts",
           "autograd_conformance.runner.stability", "autograd_conformance.runner.shrinking",
           "autograd_conformance.runner.dead_lines", "autograd_conformance.runner.attach",
           "autograd_conformance.runner.completeness")
# The hypothesis releases this runner is tested with: it reaches into three of hypothesis' internals
# (plugin.empty_local_constants, baseline.first_failure_only, robustness.set_shrink_budget), which a
# later release may change.
TESTED_HYPOTHESIS = (6, 170)


class UnsupportedHypothesis(Exception):
    """The installed hypothesis is outside the tested range."""


def check_hypothesis_version(version: str | None = None) -> None:
    """Raise UnsupportedHypothesis, in one line that says what to install, unless `version`
    (the installed hypothesis by default) is in the tested range."""
    import hypothesis
    version = version or hypothesis.__version__
    major_minor = tuple(int(part) for part in version.split(".")[:2])
    if major_minor != TESTED_HYPOTHESIS:
        tested = ".".join(map(str, TESTED_HYPOTHESIS))
        raise UnsupportedHypothesis(
            f"autograd-conformance is tested with hypothesis {tested}.x, and hypothesis {version} "
            f"is installed; install the tested one: python -m pip install 'hypothesis=={tested}.*'")


def start(config) -> None:
    """Register the runner's plugins, before xdist reads its options (called from the entry point's
    pytest_cmdline_main)."""
    for name in PLUGINS:
        config.pluginmanager.import_plugin(name)
    from .watchdog import set_xdist_defaults
    set_xdist_defaults(config)
    quiet_tracebacks(config)


def quiet_tracebacks(config) -> None:
    """A conformance run of an engine with many gaps prints thousands of lines of tracebacks and
    hypothesis notes; by default it prints one line per failing test (pytest's short summary) and
    the failures grouped by root error, and the tracebacks go to the report. `-v` or any `--tb`
    brings them back. The short summary's line stays one line on a CI machine too (where pytest
    would otherwise print a failure's whole message, reproducer included)."""
    if config.option.tbstyle == "auto" and config.option.verbose <= 0:
        config.option.tbstyle = "no"
        config.option.force_short_summary = True
