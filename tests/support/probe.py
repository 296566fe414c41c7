"""A pytest plugin for runs against broken engines (`-p tests.support.probe`).

It records, for every test that ran, its outcome, the catalog behaviours it checks, how many times
hypothesis called the test body (`calls`), at which call the first genuine failure happened
(`first_failure`: the number of examples hypothesis needed to find the bug; shrinking comes after)
and the counts it drew (`drawn`: the values of each `harness.counts.Count`, for the reach test).
The record is written as JSON to the path in $BROKEN_PROBE_OUT at the end of the session.
"""

from __future__ import annotations

import functools
import json
import os
import time

import pytest

from autograd_conformance.harness import counts

_records: list[dict] = []
_current: dict | None = None


def _genuine(error: BaseException) -> bool:
    """Hypothesis' own control-flow exceptions (assume, overrun) are not failures of the test."""
    return not type(error).__module__.startswith("hypothesis")


def _counting(inner):
    @functools.wraps(inner)
    def counted(*args, **kwargs):
        state = _current
        if state is not None:
            state["calls"] += 1
        try:
            return inner(*args, **kwargs)
        except BaseException as error:
            if state is not None and state["first_failure"] is None and _genuine(error):
                state["first_failure"] = state["calls"]
            raise
    counted._probe_counted = True
    return counted


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    for item in items:
        handle = getattr(getattr(item, "obj", None), "hypothesis", None)
        if handle is not None and not getattr(handle.inner_test, "_probe_counted", False):
            handle.inner_test = _counting(handle.inner_test)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    global _current
    _current = {"calls": 0, "first_failure": None}
    counts.DRAWN.clear()
    started = time.perf_counter()
    outcome = yield
    item._probe_state = dict(_current, seconds=time.perf_counter() - started,
                             hypothesis=hasattr(getattr(item, "obj", None), "hypothesis"),
                             drawn={what: sorted(values) for what, values in counts.DRAWN.items()})
    if not item._probe_state["hypothesis"]:
        item._probe_state["calls"] = 1
        if outcome.excinfo is not None:
            item._probe_state["first_failure"] = 1
    _current = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" or (report.when == "setup" and not report.passed):
        state = getattr(item, "_probe_state", {"calls": 0, "first_failure": None})
        _records.append({
            "nodeid": item.nodeid,
            "behaviours": [id_ for mark in item.iter_markers("behaviour") for id_ in mark.args],
            "outcome": report.outcome,
            "when": report.when,
            **state,
        })


def pytest_sessionfinish(session):
    path = os.environ.get("BROKEN_PROBE_OUT")
    if path:
        with open(path, "w") as handle:
            json.dump(_records, handle, indent=1)


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    """Keep the selected profile's examples but skip shrinking: a kill check needs a failure, not
    the smallest counterexample, and shrinking is most of a failing run's time."""
    from hypothesis import Phase, settings

    settings.register_profile("probe-no-shrink", parent=settings.default,
                              phases=[Phase.explicit, Phase.reuse, Phase.generate])
    settings.load_profile("probe-no-shrink")
