"""Top-level pytest configuration: the harness plugin and the hypothesis profiles.

Profiles (select with --hypothesis-profile): `ci` is derandomized and small enough for a CI gate
that still finds every bug in the broken-engine catalog (tests/broken; 30 examples left some
mutants alive, scripts/kill_rate.py shows how many each one needs); `dev` (the default) draws fresh examples
each run; `thorough` draws many.
"""

from hypothesis import HealthCheck, settings

pytest_plugins = ["harness.plugin", "harness.baseline", "harness.robustness",
                  "harness.watchdog", "harness.report"]

settings.register_profile("ci", max_examples=50, derandomize=True, deadline=None,
                          print_blob=True)
settings.register_profile("dev", max_examples=60, deadline=None, print_blob=True)
settings.register_profile("thorough", max_examples=1000, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("dev")
