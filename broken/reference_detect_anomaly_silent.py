"""Breaks ANOM-5 on the reference engine. detect_anomaly() turns the mode on without warning that
it slows every backward down."""

import autograd_conformance.reference.anomaly as anomaly
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _silent_init(self, check_nan=True):
    self.check_nan = check_nan
    self._saved = (anomaly.state.enabled, anomaly.state.check_nan)


anomaly.detect_anomaly.__init__ = _silent_init
