"""Gradient values and dtypes against the three oracles used together: float64 central
differences (engine-independent), algebraic relations (elsewhere: linearity in test_jacobian,
accumulation in test_reuse, autograd.grad vs backward in test_autograd_grad), and torch itself
running the same program (differential) where torch is installed (VAL-*, BC-3)."""

import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads, build, grad_or_none
from autograd_conformance.harness.engines import EngineLoadError, load_engine
from autograd_conformance.harness.oracles import assert_close, finite_difference_grads
from autograd_conformance.harness.strategies import programs

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs


def _torch_engine():
    try:
        return load_engine("torch")
    except EngineLoadError:
        return None


@behaviour("VAL-1")
@needs("float64")
@given(data=st.data())
def test_float64_gradients_match_finite_differences_tightly(engine, data):
    """Float64 programs agree with float64 central differences within rtol = 1e-5."""
    program = data.draw(programs(engine, dtype="float64"), label="program")
    tensors = build(program, engine, "out.backward()")
    tensors[program.output].backward()
    assert_leaf_grads(engine, program, tensors, finite_difference_grads(program),
                      oracle="finite-difference")


@behaviour("VAL-2")
@given(data=st.data())
def test_float32_gradients_match_the_float64_oracle(engine, data):
    """Float32 programs compute in float32 (outputs are float32) and agree with the float64
    oracle within float32 tolerances (rtol = 1e-3)."""
    program = data.draw(programs(engine, dtype="float32"), label="program")
    tensors = build(program, engine, "out.backward()")
    out = tensors[program.output]
    assert out.dtype == engine.ns.float32, f"a float32 program gave a {out.dtype} output"
    assert_close(engine.to_numpy(out), program.evaluate()[program.output], dtype="float32",
                 oracle="float64 forward", what="out")
    out.backward()
    assert_leaf_grads(engine, program, tensors, finite_difference_grads(program),
                      oracle="finite-difference")


@behaviour("BC-3")
@given(data=st.data())
def test_grad_dtype_is_the_leaf_dtype(engine, data):
    """Every .grad (of leaves, and of retained non-leaves) has the dtype of its tensor."""
    program = data.draw(programs(engine), label="program")
    tensors = build(program, engine, "out.retain_grad()", "out.backward()")
    out = tensors[program.output]
    if not out.is_leaf:
        out.retain_grad()
    out.backward()
    for leaf in program.grad_leaves():
        tensor = tensors[leaf.name]
        assert tensor.grad is not None, f"{leaf.name}.grad is None"
        assert tensor.grad.dtype == tensor.dtype == getattr(engine.ns, program.dtype), (
            f"{leaf.name} is {tensor.dtype} but its grad is {tensor.grad.dtype}")
    assert out.grad is not None, "out.grad is None"
    assert out.grad.dtype == out.dtype, f"out is {out.dtype} but its grad is {out.grad.dtype}"


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
    tensors = build(program, engine, "out.backward()")
    with engine.outside_context():  # torch as itself, even when the engine is a mode of torch
        reference = program.run_on(torch_engine)
    assert_close(engine.to_numpy(tensors[program.output]),
                 torch_engine.to_numpy(reference[program.output]), dtype=program.dtype,
                 oracle="torch (differential)", what="out")
    tensors[program.output].backward()
    with engine.outside_context():
        reference[program.output].backward()
    for leaf in program.grad_leaves():
        assert_close(grad_or_none(engine, tensors[leaf.name]),
                     grad_or_none(torch_engine, reference[leaf.name]), dtype=program.dtype,
                     oracle="torch (differential)", what=f"{leaf.name}.grad")
