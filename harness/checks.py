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

from .oracles import assert_close, finite_difference_grads
from .program import Leaf, Program
from .watchdog import journal_reproducer

_last_reproducer: list[str] = []
_last_program: list[Program] = []


def record_reproducer(script: str) -> None:
    """Note `script` for hypothesis' report and keep it for the conformance report: the last one
    recorded in a failing test is the shrunk counterexample's."""
    if currently_in_test_context():
        note("Reproducer (torch script):\n" + script)
    _last_reproducer[:] = [script]
    journal_reproducer(script)


def take_reproducer() -> str | None:
    """The reproducer of the test that just ran (and forget it)."""
    script = _last_reproducer[0] if _last_reproducer else None
    _last_reproducer.clear()
    return script


def record_program(program: Program) -> None:
    """Keep `program` for the report's graph picture: the last one recorded is the counterexample."""
    _last_program[:] = [program]


def take_program() -> Program | None:
    """The program of the test that just ran (and forget it)."""
    program = _last_program[0] if _last_program else None
    _last_program.clear()
    return program


def build(program: Program, engine, *after: str) -> dict:
    """Run `program` on `engine` after noting its reproducer (with the test's own lines `after`)."""
    record_reproducer(program.to_script(*after))
    record_program(program)
    return program.run_on(engine)


def grad_or_none(engine, tensor) -> np.ndarray | None:
    """`tensor.grad` as a NumPy array, or None; reading a non-leaf's .grad may warn in torch."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        grad = tensor.grad
    return None if grad is None else engine.to_numpy(grad)


def values_or_none(engine, tensor) -> np.ndarray | None:
    """`tensor`'s values as a NumPy array, or None where the engine gave None (autograd.grad)."""
    return None if tensor is None else engine.to_numpy(tensor)


def shape_of(tensor) -> tuple[int, ...]:
    return tuple(int(size) for size in tensor.shape)


@contextlib.contextmanager
def raises_runtime_error(message: str | None = None):
    """Expect torch's RuntimeError (with `message` as a substring at the strict level)."""
    __tracebackhide__ = True
    with pytest.raises(RuntimeError, match=re.escape(message) if message else None) as caught:
        yield caught


def engine_tensor(engine, array, dtype: str, requires_grad: bool = False):
    """A NumPy array (or nested list) as a tensor of `engine` with dtype name `dtype`."""
    data = np.asarray(array, dtype=np.float64).tolist()
    return engine.ns.tensor(data, dtype=getattr(engine.ns, dtype), requires_grad=requires_grad)


def run_transformed(program: Program, engine, around, *after: str) -> dict:
    """Run `program` on `engine` like `build`, with each node computed through `around` (see
    Program.run_on); `after` lines describe the change in the reproducer. The program is not kept
    for the report's graph picture, which would show it without the change."""
    record_reproducer(program.to_script(*after))
    return program.run_on(engine, around=around)


def held_constant(program: Program, names) -> Program:
    """`program` with the nodes `names` turned into leaves that do not require grad, holding their
    float64 values: the finite-difference oracle for a branch that gradients must not cross."""
    names = set(names)
    base = program.evaluate()
    constants = tuple(Leaf(node.name, base[node.name], False)
                      for node in program.nodes if node.name in names)
    nodes = tuple(node for node in program.nodes if node.name not in names)
    return Program(program.dtype, program.leaves + constants, nodes, program.output)


def assert_leaf_grads(engine, program: Program, tensors: dict, expected: dict, *, oracle: str,
                      scale: float = 1.0, what: str = "") -> None:
    """Every leaf of `program` that gets .grad holds `scale * expected[leaf]` (LEAF-5's leaves)."""
    __tracebackhide__ = True
    for leaf in program.grad_leaves():
        grad = grad_or_none(engine, tensors[leaf.name])
        assert grad is not None, f"{leaf.name} requires grad and takes part, but .grad is None"
        assert_close(grad, scale * expected[leaf.name], dtype=program.dtype, oracle=oracle,
                     what=f"{leaf.name}.grad{what}")


def assert_grads_with_nodes_held_constant(engine, program: Program, held, around,
                                          how: str) -> None:
    """Run `program` with the nodes `held` computed through `around` (detached, or under
    no_grad: `how` says which), then backward: each leaf's .grad equals the finite differences of
    the program with those nodes held at their values, and a leaf that reaches the output only
    through them gets none (DET-2, MODE-9)."""
    __tracebackhide__ = True
    expected = finite_difference_grads(held_constant(program, held))
    tensors = run_transformed(program, engine, around, f"# nodes {sorted(held)} {how}",
                              "out.backward()")
    out = tensors[program.output]
    # With every path cut, out is a constant: backward would raise, unless out still requires
    # grad, as torch's views made under no_grad of a tensor that requires grad do; then backward
    # runs and must reach no leaf.
    if expected or out.requires_grad:
        out.backward()
    for leaf in program.leaves:
        grad = grad_or_none(engine, tensors[leaf.name])
        if leaf.name in expected:
            assert grad is not None, f"{leaf.name} has a path around the nodes {how}"
            assert_close(grad, expected[leaf.name], dtype=program.dtype,
                         oracle=f"finite-difference with the nodes {how} held constant",
                         what=f"{leaf.name}.grad")
        else:
            assert grad is None, (f"{leaf.name} reaches the output only through nodes {how}, "
                                  f"but got .grad {grad.tolist()}")
