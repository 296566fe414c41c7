"""The oracles the suites trust (harness/oracles.py), checked against each other and against torch."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from autograd_conformance.harness.engines import load_engine
from autograd_conformance.harness.oracles import (FINITE_DIFFERENCE, TOLERANCES,
                                                  analytic_grads, finite_difference_grads)
from autograd_conformance.harness.strategies import (ALL_OPS, cotangents, op_applications,
                                                     programs)

TORCH = load_engine("torch")


def _scaled_error(got: np.ndarray, expected: np.ndarray) -> float:
    """The largest difference relative to max(1, the largest expected entry)."""
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    return float(np.max(np.abs(np.asarray(got, np.float64) - expected), initial=0.0)) / scale


@pytest.mark.parametrize("op", ALL_OPS)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_each_op_s_analytic_derivative_matches_central_differences(op, data):
    program = data.draw(op_applications(TORCH, op, dtype="float64"), label="program")
    cotangent = data.draw(cotangents(program.output_shape(), "float64"), label="cotangent")
    analytic = analytic_grads(program, cotangent)
    numeric = finite_difference_grads(program, cotangent)
    for name in analytic:
        assert _scaled_error(analytic[name], numeric[name]) <= FINITE_DIFFERENCE.atol_scale, name


@pytest.mark.parametrize("op", ALL_OPS)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_each_op_s_analytic_derivative_matches_torch(op, data):
    """Each op's vjp against torch's own float64 backward, op by op: a random program may skip an
    op whose domain is narrow, this check never does."""
    program = data.draw(op_applications(TORCH, op, dtype="float64"), label="program")
    cotangent = data.draw(cotangents(program.output_shape(), "float64"), label="cotangent")
    _assert_torch_agrees(program, cotangent)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_analytic_grads_match_torch_in_float64_to_the_oracle_s_tolerance(data):
    """The analytic oracle against torch's own float64 backward on random programs: they agree
    to TOLERANCES["float64"], the tolerance the suites hold float64 engines to."""
    program = data.draw(programs(TORCH, dtype="float64", max_ops=8, output="any"),
                        label="program")
    cotangent = data.draw(cotangents(program.output_shape(), "float64"), label="cotangent")
    _assert_torch_agrees(program, cotangent)


def _assert_torch_agrees(program, cotangent: np.ndarray) -> None:
    """Torch's float64 leaf gradients of `program` agree with the analytic oracle's to
    TOLERANCES["float64"]."""
    tensors = program.run_on(TORCH)
    tensors[program.output].backward(TORCH.ns.tensor(cotangent.tolist(), dtype=TORCH.ns.float64))
    expected = analytic_grads(program, cotangent)
    tolerance = TOLERANCES["float64"]
    for name, grad in expected.items():
        assert _scaled_error(tensors[name].grad.numpy(), grad) <= tolerance.atol_scale, name


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_every_program_s_torch_script_runs_in_torch_and_matches_numpy(data):
    """What a reproducer prints for a program (its script lines) runs under torch and computes
    the values that the oracle's NumPy forward pass computes."""
    dtype = data.draw(st.sampled_from(("float32", "float64")), label="dtype")
    program = data.draw(programs(TORCH, dtype=dtype, max_ops=8, output="any"), label="program")
    names = {"torch": TORCH.ns}
    exec("\n".join(program.script_lines()), names)
    expected = program.evaluate()
    tolerance = TOLERANCES[dtype]
    for name in program.variables()[:-1]:
        got = names[name].detach().numpy()
        assert got.dtype == np.dtype(dtype) and got.shape == expected[name].shape, name
        assert _scaled_error(got, expected[name]) <= tolerance.atol_scale, name
