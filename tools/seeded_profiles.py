"""pytest plugin for tools/false_alarms.py (`-p tools.seeded_profiles`, from the checkout's root).

The `ci` profile is derandomized, so `--hypothesis-seed` does not change what it draws. To run "ci
under 20 seeds" soundly this plugin registers `ci-seeded`: the `ci` profile's settings (examples,
deadline, health checks) with derandomize off, so that the seed decides the examples. It also
registers `dev-seeded`: the `dev` profile without the example database, so that each seed's run is
independent of earlier runs (a failure is still reported with its seed and `@reproduce_failure`
blob, which is what reproduces it).
"""

import pytest
from hypothesis import settings


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    settings.register_profile("ci-seeded", parent=settings.get_profile("ci"), derandomize=False,
                              database=None)
    settings.register_profile("dev-seeded", parent=settings.get_profile("dev"), database=None)
