"""Checks the suites share, written as steps of a `Script` (autograd_conformance/harness/script.py), so that every check
is also a line of the failing example's reproducer."""

from __future__ import annotations

import numpy as np
import pytest

from .engines import EngineLoadError, load_engine
from .oracles import Gradients, analytic_grads
from .program import Leaf, Program
from .script import Script, tensor_literal


def differential_oracle(engine):
    """torch, loaded as the differential oracle of `engine`'s test (VAL-3, CPLX-2); the test is
    skipped, with the reason, where the engine is torch itself or torch is not installed."""
    if engine.name == "torch":
        pytest.skip("torch is the differential oracle itself")
    try:
        return load_engine("torch")
    except EngineLoadError:
        pytest.skip("torch is not installed: no differential oracle")


def assert_leaf_grads(script: Script, program: Program, expected: Gradients, *, oracle: str,
                      scale: float = 1.0) -> None:
    """Every leaf of `program` that gets .grad holds `scale * expected[leaf]` (LEAF-5's leaves)."""
    __tracebackhide__ = True
    for leaf in program.grad_leaves():
        script.check_close(f"{leaf.name}.grad", scale * expected[leaf.name],
                           dtype=program.dtype, oracle=oracle,
                           magnitude=scale * expected.magnitude)


def assert_op_application(script: Script, program: Program, cotangent, *, forward: bool) -> None:
    """`program` applies one op to its leaves (strategies.op_applications): with `forward`, its
    output holds the float64 forward pass's values; backward with `cotangent` gives every leaf
    the analytic vector-Jacobian product (OP-*, and an op's own verdict, runner/op_verdicts.py)."""
    __tracebackhide__ = True
    expected = analytic_grads(program, cotangent)
    script.build(program)
    op = program.nodes[-1].op
    if forward:
        script.check_close("out", program.evaluate()[program.output], dtype=program.dtype,
                           oracle=f"float64 forward of {op}")
    script.run(f"out.backward({tensor_literal(cotangent, program.dtype)})")
    assert_leaf_grads(script, program, expected, oracle=f"analytic v^T J through {op}")


def assert_grads_only_where_expected(script: Script, program: Program, expected: Gradients, *,
                                     oracle: str, why_none: str) -> None:
    """Each leaf named in `expected` holds that gradient; every other leaf's .grad is None
    (`why_none` says why, e.g. "is not in inputs")."""
    __tracebackhide__ = True
    for leaf in program.leaves:
        if leaf.name in expected:
            script.check_close(f"{leaf.name}.grad", expected[leaf.name], dtype=program.dtype,
                               oracle=oracle, magnitude=expected.magnitude)
        else:
            script.check_equal(f"{leaf.name}.grad", None, why=f"{leaf.name} {why_none}")


def held_constant(program: Program, names) -> Program:
    """`program` with the nodes `names` turned into leaves that do not require grad, holding their
    float64 values: the oracle for a branch that gradients must not cross."""
    names = set(names)
    base = program.evaluate()
    constants = tuple(Leaf(node.name, base[node.name], False)
                      for node in program.nodes if node.name in names)
    nodes = tuple(node for node in program.nodes if node.name not in names)
    return Program(program.dtype, program.leaves + constants, nodes, program.output)


def assert_grads_with_nodes_held_constant(script: Script, program: Program, held, wrap,
                                          how: str) -> None:
    """Build `program` with the lines of the nodes `held` changed by `wrap` (detached, or computed
    under no_grad: `how` says which), then backward: each leaf's .grad equals the analytic
    gradients of the program with those nodes held at their values, and a leaf that reaches the
    output only through them gets none (DET-2, MODE-9)."""
    __tracebackhide__ = True
    expected = analytic_grads(held_constant(program, held))
    script.build(program, wrap=lambda name, line: wrap(name, line) if name in held else [line])
    if expected:
        script.run("out.backward()")
    else:
        # Every path is cut, so out is a constant and backward would raise, unless out still
        # requires grad, as torch's views made under no_grad of a tensor that requires grad do;
        # then backward runs and must reach no leaf.
        script.run("if out.requires_grad:\n    out.backward()")
    assert_grads_only_where_expected(
        script, program, expected, oracle=f"analytic with the nodes {how} held constant",
        why_none=f"reaches the output only through nodes {how}")


def assert_gradients_stop_at(script: Script, program: Program, name: str, weights, what: str) -> None:
    """Backward from sum(name * weights), where `name` is a new leaf that requires grad made from
    the values of `program` (`what` says how): its .grad is `weights`, and none of the program's
    leaves gets one (MOD-2, MISC-8)."""
    __tracebackhide__ = True
    script.run(f"({name} * {tensor_literal(weights, program.dtype)}).sum().backward()")
    script.check_close(f"{name}.grad", weights, dtype=program.dtype,
                       oracle=f"w, the gradient of sum({name} * w)")
    for leaf in program.leaves:
        script.check(f"{leaf.name}.grad is None", f"backward from {what} reached {leaf.name}")


def assert_grads_with_paths_through_scaled(script: Script, program: Program, node: str,
                                           factor: float, *, how: str) -> None:
    """Every leaf's .grad after a backward in which the gradient flowing through `node` was
    multiplied by `factor` (`how` says by what, e.g. a hook): the paths around the node give what
    they give, the paths through it `factor` times as much (HOOK-2)."""
    __tracebackhide__ = True
    full = analytic_grads(program)
    around = analytic_grads(held_constant(program, [node]))
    for leaf in program.grad_leaves():
        base = around.get(leaf.name, np.zeros_like(full[leaf.name]))
        script.check_close(f"{leaf.name}.grad", base + factor * (full[leaf.name] - base),
                           dtype=program.dtype,
                           oracle=f"analytic, paths through {node} x {factor} ({how})",
                           magnitude=max(1, abs(factor)) * (full.magnitude + around.magnitude))
