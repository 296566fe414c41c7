"""The oracles the suites trust (autograd_conformance/harness/oracles.py), checked against each other
and against torch."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograd_conformance.harness.engines import load_engine
from autograd_conformance.harness.oracles import (
    FINITE_DIFFERENCE,
    TOLERANCES,
    analytic_grads,
    analytic_jacobian,
    finite_difference_grads,
    finite_difference_hessian,
    finite_difference_hvp,
)
from autograd_conformance.harness.strategies import ALL_OPS, EXTREMA, cotangents, op_applications, programs

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


@pytest.mark.parametrize("op", ALL_OPS + EXTREMA)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_each_op_s_analytic_derivative_matches_torch(op, data):
    """Each op's vjp against torch's own float64 backward, op by op: a random program may skip an
    op whose domain is narrow, this check never does. For max, min, amax and amin, on ties (half
    the examples) too: there their vjp is torch's documented choice of subgradient, which central
    differences (the test above, without them) cannot check."""
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


def _function_of_leaves(program):
    """`program` as a Python function of its leaves that take part, run on torch (the others
    made afresh on each call), and those leaves' float64 values as torch tensors."""
    names = [leaf.name for leaf in program.leaves if leaf.name in program.ancestors()]

    def function(*tensors):
        return program.run_on(TORCH, dict(zip(names, tensors)))[program.output]
    return names, function, tuple(TORCH.ns.tensor(program.leaf(name).values.tolist(),
                                                  dtype=TORCH.ns.float64) for name in names)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_analytic_jacobian_matches_torch_s_functional_jacobian(data):
    """analytic_jacobian's blocks (out.shape + leaf.shape) against torch's functional.jacobian of
    the program as a function of its leaves, to TOLERANCES["float64"] scaled by its magnitude."""
    program = data.draw(programs(TORCH, dtype="float64", max_ops=6, output="any"),
                        label="program")
    names, function, inputs = _function_of_leaves(program)
    expected = analytic_jacobian(program, names)
    got = TORCH.ns.autograd.functional.jacobian(function, inputs)
    scale = max(1.0, expected.magnitude)
    for name, block in zip(names, got):
        error = float(np.max(np.abs(block.numpy() - expected.blocks[name]), initial=0.0))
        assert block.shape == expected.blocks[name].shape and error <= 1e-12 * scale, name


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_finite_difference_hessian_and_hvp_match_torch_to_their_tolerance(data):
    """The second-derivative oracles (central differences of the analytic gradient) against
    torch's functional.hessian of one-element float64 programs, to FINITE_DIFFERENCE: the full
    Hessian block by block, and H v against the Hessian's own product with v."""
    program = data.draw(programs(TORCH, dtype="float64", max_ops=4), label="program")
    names, function, inputs = _function_of_leaves(program)
    vectors = {name: data.draw(cotangents(program.leaf(name).values.shape, "float64"),
                               label=f"v for {name}") for name in names}
    hessian = TORCH.ns.autograd.functional.hessian(function, inputs)
    blocks = finite_difference_hessian(program, names)
    hvp = finite_difference_hvp(program, vectors)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            error = _scaled_error(hessian[i][j].numpy(), blocks[a, b])
            assert error <= FINITE_DIFFERENCE.atol_scale, (a, b)
        product = sum(np.tensordot(hessian[i][j].numpy(), vectors[b], axes=vectors[b].ndim)
                      for j, b in enumerate(names))
        assert _scaled_error(product, hvp[a]) <= FINITE_DIFFERENCE.atol_scale, a
