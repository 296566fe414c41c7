"""Mutants of the catalog's chapter 'anomaly' (suites/test_anomaly.py): Anomaly detection: NaN
checks and forward tracebacks in backward."""

import traceback
import warnings

import numpy as np

from autograd_conformance.reference import anomaly, graph
from autograd_conformance.reference.ops import elementwise
from tests.broken import _reference
from tests.broken.registry import mutant


@mutant("GRAD-7")
def reference_sqrt_backward_with_epsilon():
    """sqrt's backward divides by 2 * sqrt(x) + 1e-30, a "safe" sqrt: at x = 0 the gradient is a
    huge finite number instead of inf, and 0 times it is 0, not NaN, so anomaly mode has no NaN
    to flag. Elsewhere the epsilon vanishes in rounding."""
    def _safe_backward(self, grad):
        result, = self.saved(grad)
        return (grad / (2 * result + 1e-30),)

    elementwise.SqrtBackward0.backward = _safe_backward


@mutant("ANOM-1")
def reference_anomaly_exit_resets_defaults():
    """Leaving a detect_anomaly() or set_detect_anomaly() block switches the mode off (check_nan
    back on) instead of restoring the state the block found, so an inner block ends the mode of
    an outer one."""
    def _reset(self, *exc_info):
        anomaly.state.enabled, anomaly.state.check_nan = False, True

    anomaly.detect_anomaly.__exit__ = anomaly.set_detect_anomaly.__exit__ = _reset


@mutant("ANOM-2")
def reference_nan_check_needs_forward_trace():
    """The NaN check runs only on nodes recorded under anomaly mode (those that carry a forward
    traceback), so a graph built before the mode was switched on backpropagates its NaN
    gradients without an error."""
    def _traced_only(check_outputs):
        def check_traced_outputs(node, outputs):
            if getattr(node, "_trace", None) is not None:
                check_outputs(node, outputs)
        return check_traced_outputs

    _reference.replace(anomaly, "check_outputs", _traced_only)


@mutant("ANOM-3")
def reference_nan_output_counted_from_one():
    """The NaN error counts a node's outputs from 1, so the first output is 'its 1th output' where
    torch says 0th."""
    def _counted_from_one(check_outputs):
        def check_outputs_from_one(node, outputs):
            for number, output in enumerate(outputs, start=1):
                values = getattr(output, "_array", output)
                if values is not None and np.isnan(values).any():
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its {number}th output.")
        return check_outputs_from_one

    _reference.replace(anomaly, "check_outputs", _counted_from_one)


@mutant("ANOM-4")
def reference_anomaly_traceback_of_backward():
    """The warning of a failing backward shows where the error was detected, the traceback of the
    backward call, not of the forward op that recorded the failing node (and never says that no
    forward pass information is available)."""
    def _at_backward(report_failure):
        def report_where_detected(node):
            trace = "".join(traceback.format_stack())
            warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the "
                          f"error:\n{trace}", UserWarning)
        return report_where_detected

    _reference.replace(anomaly, "report_failure", _at_backward)


@mutant("ANOM-5")
def reference_detect_anomaly_silent():
    """detect_anomaly() turns the mode on without warning that it slows every backward down."""
    def _silent_init(self, check_nan=True):
        self.check_nan = check_nan
        self._saved = (anomaly.state.enabled, anomaly.state.check_nan)

    anomaly.detect_anomaly.__init__ = _silent_init


@mutant("INP-18")
def reference_anomaly_hint_unchanged():
    """The version error keeps suggesting anomaly detection even when it is already on, instead of
    pointing at the traceback the mode printed above it."""
    graph._ANOMALY_HINT = graph._HINT
