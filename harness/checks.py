"""Small helpers the suites share: run a program with its reproducer noted, read gradients, and
check that an engine raises what torch raises.
"""

from __future__ import annotations

import contextlib
import re
import warnings

import numpy as np
import pytest
from hypothesis import note
from hypothesis.control import currently_in_test_context

from harness.program import Program

_last_reproducer: list[str] = []


def record_reproducer(script: str) -> None:
    """Note `script` for hypothesis' report and keep it for the conformance report: the last one
    recorded in a failing test is the shrunk counterexample's."""
    if currently_in_test_context():
        note("Reproducer (torch script):\n" + script)
    _last_reproducer[:] = [script]


def take_reproducer() -> str | None:
    """The reproducer of the test that just ran (and forget it)."""
    script = _last_reproducer[0] if _last_reproducer else None
    _last_reproducer.clear()
    return script


def build(program: Program, engine, *after: str) -> dict:
    """Run `program` on `engine` after noting its reproducer (with the test's own lines `after`)."""
    record_reproducer(program.to_script(*after))
    return program.run_on(engine)


def grad_or_none(engine, tensor) -> np.ndarray | None:
    """`tensor.grad` as a NumPy array, or None; reading a non-leaf's .grad may warn in torch."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        grad = tensor.grad
    return None if grad is None else engine.to_numpy(grad)


def shape_of(tensor) -> tuple[int, ...]:
    return tuple(int(size) for size in tensor.shape)


@contextlib.contextmanager
def raises_runtime_error(message: str | None = None):
    """Expect torch's RuntimeError (with `message` as a substring at the strict level)."""
    __tracebackhide__ = True
    with pytest.raises(RuntimeError, match=re.escape(message) if message else None) as caught:
        yield caught
