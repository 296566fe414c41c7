"""The pytest plugin of autograd-conformance, registered by the package's `pytest11` entry point.

pytest loads entry-point plugins before it parses the command line, so the suite's options are
known wherever pytest runs, and file options work as `--baseline PATH` as well as
`--baseline=PATH`. This module is all that a pytest run of an environment where the package is
installed pays for: the options and markers (runner/options.py). In a conformance run (an argument
names the suites) it starts the runner (autograd_conformance/runner: engines, baseline, time
limits, watchdog, each test's evidence) and the report room (reports/plugin.py, which reads what
the runner attached), and registers the hypothesis profiles, which `--hypothesis-profile` also
registers in any other run.

Profiles: `ci` is derandomized and small enough for a CI gate that still finds every bug in the
broken-engine catalog (tests/broken; 30 examples left some mutants alive, tools/kill_rate.py shows
how many each one needs); `dev` (the default of a conformance run) draws fresh examples each run;
`thorough` draws many; `explore`, for a new engine's first run, draws 15 derandomized examples a
test and shrinks each failure for at most 5 seconds, for a first verdict in minutes whose
failures still come with small reproducers. None runs hypothesis' explain phase: a failure's reproducer script shows
what failed, and the explain phase traces every line of every shrink step once a test has failed,
which makes shrinking a slow engine's failures several times slower.
"""

import pytest

from .runner.options import MARKERS, add_options, runs_suites


def pytest_addoption(parser):
    add_options(parser)


def pytest_configure(config):
    for marker in MARKERS:
        config.addinivalue_line("markers", marker)


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config):
    """Before any other plugin's pytest_cmdline_main (xdist's reads -n there) and before
    pytest_configure (hypothesis loads --hypothesis-profile there)."""
    if runs_suites(config):
        from . import runner
        try:
            runner.check_hypothesis_version()
        except runner.UnsupportedHypothesis as error:
            raise pytest.UsageError(str(error)) from None
        runner.start(config)
        from .reports import plugin as report_plugin
        config.pluginmanager.register(report_plugin, report_plugin.__name__)
    if runs_suites(config) or config.getoption("hypothesis_profile", None):
        register_profiles()
    return (yield)


def register_profiles() -> None:
    from hypothesis import HealthCheck, Phase, settings
    phases = [phase for phase in Phase if phase is not Phase.explain]
    settings.register_profile("ci", max_examples=50, derandomize=True, deadline=None,
                              print_blob=True, phases=phases)
    settings.register_profile("dev", max_examples=60, deadline=None, print_blob=True,
                              phases=phases)
    settings.register_profile("thorough", max_examples=1000, deadline=None, print_blob=True,
                              phases=phases, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("explore", max_examples=15, derandomize=True, deadline=None,
                              print_blob=True, phases=phases)
