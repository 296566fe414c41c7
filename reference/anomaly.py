"""Anomaly detection: a debugging mode of the backward walk (torch.autograd.anomaly_mode).

Under it, a node remembers the Python traceback of the forward call that recorded it
(`forward_trace`, read by graph.py's Node); when backward fails inside a node, a UserWarning
names the node and shows that traceback before the error goes on (`report_failure`, ANOM-4), and
the version error's hint points at it (INP-18). With `check_nan` (the default), a node that
returns a NaN gradient makes backward raise, naming the node and the output (`check_outputs`,
GRAD-7, ANOM-2, ANOM-3). Both switches are read when backward runs: a graph recorded outside
the mode is checked too, only without a traceback to show.

This module imports nothing of the engine: the graph and the walk call it.
"""
import os
import traceback
import warnings
from pathlib import Path

import numpy as np

_ENGINE_DIR = str(Path(__file__).resolve().parent) + os.sep
ENABLED_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and "
                   "should only be enabled for debugging.")
NO_TRACE = ("No forward pass information available. Enable detect anomaly during forward pass for "
            "more information.")


class _State:
    __slots__ = ("enabled", "check_nan")

    def __init__(self):
        self.enabled = False
        self.check_nan = True


state = _State()


def is_anomaly_enabled():
    return state.enabled


def is_anomaly_check_nan_enabled():
    return state.check_nan


class detect_anomaly:  # torch's name
    """`with detect_anomaly():` turns the mode on for the block, restoring the previous state on
    exit (ANOM-1); creating it warns that the mode is slow (ANOM-5)."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        self._saved = (state.enabled, state.check_nan)
        warnings.warn(ENABLED_WARNING, UserWarning, stacklevel=2)

    def __enter__(self):
        state.enabled, state.check_nan = True, self.check_nan
        return self

    def __exit__(self, *exc_info):
        state.enabled, state.check_nan = self._saved


class set_detect_anomaly:  # torch's name
    """Sets the mode at once, so that it works as a plain call; as a context manager it restores
    the state it found on exit (ANOM-1). It does not warn."""

    def __init__(self, mode, check_nan=True):
        self._saved = (state.enabled, state.check_nan)
        state.enabled, state.check_nan = bool(mode), bool(check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        state.enabled, state.check_nan = self._saved


def forward_trace():
    """The traceback of the caller's forward op as lines, without this engine's own frames, when
    the mode is on; None otherwise (a node recorded outside the mode has none)."""
    if not state.enabled:
        return None
    frames = [frame for frame in traceback.extract_stack()
              if not frame.filename.startswith(_ENGINE_DIR)]
    return traceback.format_list(frames)


def report_failure(node):
    """Backward failed inside `node`: warn with the traceback of the forward call that recorded
    it, or say that there is none (ANOM-4). The error itself goes on unchanged."""
    trace = getattr(node, "_trace", None)
    detail = (NO_TRACE if trace is None
              else "Traceback of forward call that caused the error:\n" + "".join(trace))
    warnings.warn(f"Error detected in {node.name()}. {detail}", UserWarning)


def check_outputs(node, outputs):
    """Raise if one of the gradients `node` returned (arrays, tensors or None) holds a NaN."""
    for index, output in enumerate(outputs):
        values = getattr(output, "_array", output)
        if values is not None and np.isnan(values).any():
            raise RuntimeError(
                f"Function '{node.name()}' returned nan values in its {index}th output.")
