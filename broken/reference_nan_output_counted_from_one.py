"""Breaks ANOM-3 on the reference engine. The NaN error counts a node's outputs from 1, so the
first output is 'its 1th output' where torch says 0th."""

import numpy as np

import autograd_conformance.reference.anomaly as anomaly
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _counted_from_one(check_outputs):
    def check_outputs_from_one(node, outputs):
        for number, output in enumerate(outputs, start=1):
            values = getattr(output, "_array", output)
            if values is not None and np.isnan(values).any():
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {number}th output.")
    return check_outputs_from_one


_reference.replace(anomaly, "check_outputs", _counted_from_one)
