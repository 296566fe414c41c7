"""Breaks INP-18 on the reference engine. The version error keeps suggesting anomaly detection
even when it is already on, instead of pointing at the traceback the mode printed above it."""

import autograd_conformance.reference.graph as graph
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

graph._ANOMALY_HINT = graph._HINT
