"""The pytest plugin of autograd-conformance, registered by the package's `pytest11` entry point.

pytest loads entry-point plugins before it parses the command line, so the suite's options are
known wherever pytest runs, and file options work as `--baseline PATH` as well as
`--baseline=PATH` (registered only by a checkout's conftest.py, they were unknown to pytest when
the conftest was not found, e.g. run from elsewhere with a file outside the checkout). This module
pulls in the harness's plugins and registers the hypothesis profiles (`plugin` loads `dev` in a
conformance run). In a pytest run that is not a conformance run (a project's own tests, in an
environment where this package is installed) the plugins add options and markers and change
nothing else.

Profiles (select with --hypothesis-profile): `ci` is derandomized and small enough for a CI gate
that still finds every bug in the broken-engine catalog (broken; 30 examples left some
mutants alive, scripts/kill_rate.py shows how many each one needs); `dev` (the default of a
conformance run) draws fresh examples each run; `thorough` draws many.
"""

from hypothesis import HealthCheck, settings

pytest_plugins = ["autograd_conformance.harness.plugin", "autograd_conformance.harness.baseline",
                  "autograd_conformance.harness.robustness", "autograd_conformance.harness.watchdog",
                  "autograd_conformance.reports.plugin"]

settings.register_profile("ci", max_examples=50, derandomize=True, deadline=None,
                          print_blob=True)
settings.register_profile("dev", max_examples=60, deadline=None, print_blob=True)
settings.register_profile("thorough", max_examples=1000, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
