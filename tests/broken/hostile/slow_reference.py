"""A slow young engine: the reference engine with a delay in every op and three behaviours broken
(the mutants reference_graph_never_freed, reference_no_accumulation and
reference_shared_node_counted_once: RETAIN-1, ACC-1 and RETAIN-4, LEAF-5). Each example takes a
while and a test many times that; for tests/test_robustness.py: such an engine gets its verdict,
every broken behaviour with its error, and never a false UNRESPONSIVE. SLOW_REFERENCE_DELAY sets
the delay (seconds, default 0.002)."""

import os
import time

from autograd_conformance import reference
from autograd_conformance.reference import graph
from tests.broken import _reference, mutants

BROKEN = ("reference_graph_never_freed", "reference_no_accumulation",
          "reference_shared_node_counted_once")
DELAY_S = float(os.environ.get("SLOW_REFERENCE_DELAY", "0.002"))

name = "slow-reference"
version = reference.version
capabilities = reference.capabilities
to_numpy = reference.to_numpy


def __getattr__(attribute):
    return getattr(reference, attribute)


def _slow(record):
    def slow_record(*args):
        time.sleep(DELAY_S)
        return record(*args)
    return slow_record


for mutant in BROKEN:
    mutants()[mutant].install()
_reference.replace(graph, "record", _slow)
