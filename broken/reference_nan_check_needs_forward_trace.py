"""Breaks ANOM-2 on the reference engine. The NaN check runs only on nodes recorded under anomaly
mode (those that carry a forward traceback), so a graph built before the mode was switched on
backpropagates its NaN gradients without an error."""

import autograd_conformance.reference.anomaly as anomaly
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _traced_only(check_outputs):
    def check_traced_outputs(node, outputs):
        if getattr(node, "_trace", None) is not None:
            check_outputs(node, outputs)
    return check_traced_outputs


_reference.replace(anomaly, "check_outputs", _traced_only)
