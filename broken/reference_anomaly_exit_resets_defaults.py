"""Breaks ANOM-1 on the reference engine. Leaving a detect_anomaly() or set_detect_anomaly() block
switches the mode off (check_nan back on) instead of restoring the state the block found, so an
inner block ends the mode of an outer one."""

import autograd_conformance.reference.anomaly as anomaly
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _reset(self, *exc_info):
    anomaly.state.enabled, anomaly.state.check_nan = False, True


anomaly.detect_anomaly.__exit__ = anomaly.set_detect_anomaly.__exit__ = _reset
