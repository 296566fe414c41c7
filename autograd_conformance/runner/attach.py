"""Attach, in the process that runs a conformance test (an xdist worker, or the only process),
what the test showed to its pytest report, in the shape runner/evidence.py names: its engine,
behaviours and level, the baseline's verdict, and for a failure its reproducers and the graphs of
its counterexample (read from the engine here, drawn by the library: the report room never touches
an engine).
"""

from __future__ import annotations

from dataclasses import asdict

import pytest

from ..harness.graphs import describe_graph, expected_graph
from ..harness.script import error_line, reproducers
from .evidence import BEHAVIOURS, ENGINE, EXCUSE, GRAPHS, LEVEL, NOT_RUN, REPRODUCER, excuse_of, outside_checks, record
from .outcomes import outcome
from .plugin import LAST_SCRIPT, behaviour_ids, item_engine, item_level
from .robustness import TimeLimitExceeded, time_limit

GRAPH_TIME_LIMIT = 10.0  # seconds to read a counterexample's graph from an engine's tensors


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Attach the test's engine, behaviours and level (for the controller and the JUnit XML); the
    baseline's verdict where it decided the outcome (an expected failure, a strict one that passed,
    its skip in skip mode; not the skip of a test whose engine the run gave up); for a failure, its
    reproducers (one per distinct failure, from the notes that harness/script.py puts on the
    exception, else the script it ran) and the counterexample's graphs."""
    engine = item_engine(item)
    if engine is not None and call.when == "setup":
        item.user_properties += [(ENGINE, engine.name), (BEHAVIOURS, " ".join(behaviour_ids(item))),
                                 (LEVEL, item_level(item) or "")]
    report = yield
    listed = excuse_of(item)
    if listed is not None and outcome(report) in ("xfailed", "xpassed", "skipped") \
            and NOT_RUN not in dict(report.user_properties):
        setattr(report, EXCUSE, asdict(listed))
    if call.when != "call":
        return report
    script = item.stash.get(LAST_SCRIPT, None)
    item.stash[LAST_SCRIPT] = None
    if engine is None or outcome(report) not in ("failed", "xfailed"):
        return report
    failure = call.excinfo.value if call.excinfo else None
    found = [record(each) for each in reproducers(failure)]
    if not found and script is not None:   # the failure is outside the script's steps
        found = [outside_checks(script.text(), error_line(failure))]
    for each in found:
        report.user_properties.append((REPRODUCER, each))
        item.user_properties.append((REPRODUCER, each["script"]))
    if script is not None and script.program is not None:
        report.user_properties.append((GRAPHS, counterexample_graphs(script, engine)))
    return report


def counterexample_graphs(script, engine) -> dict:
    """The counterexample's graph as the engine built it in the failing example, and as torch
    builds it (by the catalog's rules: no second engine is loaded or run)."""
    tensors = {name: script.names[name] for name in script.program.variables()
               if name in script.names}
    try:
        with time_limit(GRAPH_TIME_LIMIT):
            built = describe_graph(script.program, engine, tensors)
    except TimeLimitExceeded:
        built = {"variables": [], "error": f"reading the graph took over {GRAPH_TIME_LIMIT:g} s"}
    return {"engine": built, "torch": expected_graph(script.program)}
