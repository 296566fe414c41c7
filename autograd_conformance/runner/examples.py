"""Around each example of a conformance test: where the runner's per-example work hooks in.

An example is one call of a hypothesis test's body (the program hypothesis drew); a test without
hypothesis, and a known gap judged on its recorded reproducers (baseline.py), is one example. The
time limit (robustness.py) and the engine-state check (isolation.py) each run around every example,
so that hypothesis' own work between examples (generating, shrinking) is never limited, and a
failing example is charged to itself, with its reproducer.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Callable, ContextManager

from .baseline import replays_evidence


@contextlib.contextmanager
def around_each_example(item, around: Callable[[], ContextManager]):
    """While the test `item` runs (the block), run each of its examples inside `around()`. A
    hypothesis test's body is reached through `inner_test`, which hypothesis reads at each call
    (the attribute plugins may wrap)."""
    handle = None if replays_evidence(item) else getattr(item.obj, "hypothesis", None)
    if handle is None:
        with around():
            yield
        return
    body = handle.inner_test

    @functools.wraps(body)
    def each(*args, **kwargs):
        with around():
            return body(*args, **kwargs)

    handle.inner_test = each
    try:
        yield
    finally:
        handle.inner_test = body
