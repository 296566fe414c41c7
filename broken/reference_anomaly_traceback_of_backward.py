"""Breaks ANOM-4 on the reference engine. The warning of a failing backward shows where the error
was detected, the traceback of the backward call, not of the forward op that recorded the
failing node (and never says that no forward pass information is available)."""

import traceback
import warnings

import autograd_conformance.reference.anomaly as anomaly
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _at_backward(report_failure):
    def report_where_detected(node):
        trace = "".join(traceback.format_stack())
        warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the "
                      f"error:\n{trace}", UserWarning)
    return report_where_detected


_reference.replace(anomaly, "report_failure", _at_backward)
