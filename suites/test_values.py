"""Gradient values and dtypes against the three oracles used together: float64 central
differences (engine-independent), algebraic relations (elsewhere: linearity in test_jacobian,
accumulation in test_reuse, autograd.grad vs backward in test_autograd_grad), and torch itself
running the same program (differential) where torch is installed (VAL-*, BC-3)."""

import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads
from autograd_conformance.harness.engines import EngineLoadError, load_engine
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script
from autograd_conformance.harness.strategies import programs

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs


def _torch_engine():
    try:
        return load_engine("torch")
    except EngineLoadError:
        return None


def _torch_values(engine, torch_engine, program):
    """The program's output and its leaves' grads as torch computes them (NumPy arrays): the
    differential oracle. It runs in a Script of its own on torch, made before the test's (whose
    steps are the reproducer), outside the engine's context (torch as itself, even when the
    engine is a mode of torch); its values are read, never checked."""
    with engine.outside_context():
        oracle = Script(torch_engine)
        oracle.build(program)
        out = oracle.value("to_numpy(out)")
        oracle.run("out.backward()")
        grads = {leaf.name: oracle.value(f"to_numpy({leaf.name}.grad)")
                 for leaf in program.grad_leaves()}
    return out, grads


@behaviour("VAL-1")
@needs("float64")
@given(data=st.data())
def test_float64_gradients_are_exact_to_float64_precision(engine, data):
    """Float64 programs' gradients agree with the analytic oracle within the float64 tolerance
    (harness/oracles.py: 1e-12), so a step that rounds through float32 fails."""
    program = data.draw(programs(engine, dtype="float64"), label="program")
    script = Script(engine)
    script.build(program)
    script.run("out.backward()")
    assert_leaf_grads(script, program, analytic_grads(program),
                      oracle="analytic")


@behaviour("VAL-2")
@given(data=st.data())
def test_float32_gradients_match_the_float64_oracle(engine, data):
    """Float32 programs compute in float32 (outputs are float32) and agree with the float64
    analytic oracle within the float32 tolerance (harness/oracles.py: 2e-5)."""
    program = data.draw(programs(engine, dtype="float32"), label="program")
    script = Script(engine)
    script.build(program)
    script.check("out.dtype == torch.float32", "a float32 program gave a {out.dtype} output")
    script.check_close("out", program.evaluate()[program.output], dtype="float32",
                       oracle="float64 forward")
    script.run("out.backward()")
    assert_leaf_grads(script, program, analytic_grads(program),
                      oracle="analytic")


@behaviour("BC-3")
@given(data=st.data())
def test_grad_dtype_is_the_leaf_dtype(engine, data):
    """Every .grad (of leaves, and of retained non-leaves) has the dtype of its tensor."""
    program = data.draw(programs(engine), label="program")
    script = Script(engine)
    script.build(program)
    script.run("if not out.is_leaf:",
               "    out.retain_grad()",
               "out.backward()")
    for leaf in program.grad_leaves():
        name = leaf.name
        script.check(f"{name}.grad is not None", f"{name}.grad is None")
        script.check(f"{name}.grad.dtype == {name}.dtype == torch.{program.dtype}",
                     f"{name} is {{{name}.dtype}} but its grad is {{{name}.grad.dtype}}")
    script.check("out.grad is not None", "out.grad is None")
    script.check("out.grad.dtype == out.dtype",
                 "out is {out.dtype} but its grad is {out.grad.dtype}")


@behaviour("VAL-3")
@given(data=st.data())
def test_gradients_match_torch_on_the_same_program(engine, data):
    """Differential oracle: torch, running the same program, gives the same forward value and
    the same gradients (within the dtype's tolerance)."""
    if engine.name == "torch":
        pytest.skip("torch is the differential oracle itself")
    torch_engine = _torch_engine()
    if torch_engine is None:
        pytest.skip("torch is not installed: no differential oracle")
    program = data.draw(programs(engine), label="program")
    torch_out, torch_grads = _torch_values(engine, torch_engine, program)
    script = Script(engine)
    script.build(program)
    script.check_close("out", torch_out, dtype=program.dtype, oracle="torch (differential)")
    script.run("out.backward()")
    for leaf in program.grad_leaves():
        script.check_close(f"{leaf.name}.grad", torch_grads[leaf.name], dtype=program.dtype,
                           oracle="torch (differential)")
