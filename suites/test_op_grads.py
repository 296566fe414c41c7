"""Gradient values per op: each op of the op set, alone on leaves, matches the analytic float64
vector-Jacobian product (harness/ops.py, which tests/test_oracles.py checks against central finite
differences, gradcheck-style), plus torch's conventions at awkward points: relu and abs at 0, a
tensor power's zero base, pow with negative bases and integer exponents (OP-*, GRAD-6)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script, literal
from autograd_conformance.harness.strategies import (cotangents, op_applications, shapes,
                                                     widest_float_dtype)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs

FAMILIES = {
    "OP-1": ("add", "sub", "neg", "clone"),
    "OP-2": ("mul", "div"),
    "OP-3": ("exp", "log", "tanh", "sigmoid", "sqrt", "abs"),
    "OP-4": ("pow", "pow_tensor", "rpow"),
    "OP-5": ("relu",),
    "OP-6": ("sum", "mean"),
    "OP-7": ("matmul", "mv", "dot"),
    "OP-8": ("reshape", "transpose", "index", "index_list"),
}


def _check_op(engine, data, op):
    """One application of `op` on leaves; backward with a random gradient (a vector of ones
    would hide transposed or permuted vector-Jacobian products) against the analytic oracle."""
    program = data.draw(op_applications(engine, op, dtype=widest_float_dtype(engine)),
                        label="program")
    v = data.draw(cotangents(program.output_shape(), program.dtype), label="gradient")
    expected = analytic_grads(program, v)
    script = Script(engine)
    script.build(program)
    script.run(f"out.backward(torch.tensor({literal(v)}, dtype=torch.{program.dtype}))")
    assert_leaf_grads(script, program, expected, oracle=f"analytic v^T J through {op}")


def _family_test(behaviour_id):
    ops = FAMILIES[behaviour_id]

    @behaviour(behaviour_id)
    # each op its own examples (a family of six shares none), skipped where the engine lacks it
    @pytest.mark.parametrize("op", [pytest.param(op, marks=pytest.mark.op(op)) for op in ops])
    @given(data=st.data())
    def test(engine, data, op):
        _check_op(engine, data, op)

    test.__name__ = f"test_{'_'.join(ops)}_gradients_match_the_analytic_oracle"
    test.__doc__ = f"The gradients of {', '.join(ops)} match the analytic float64 oracle."
    return test


test_add_sub_neg = _family_test("OP-1")
test_mul_div = _family_test("OP-2")
test_exp_log_tanh_sigmoid = _family_test("OP-3")
test_pow = _family_test("OP-4")
test_relu = _family_test("OP-5")
test_sum_mean = _family_test("OP-6")
test_matmul = _family_test("OP-7")
test_reshape_transpose_index = _family_test("OP-8")


@behaviour("OP-4")
@pytest.mark.op("pow")
@given(shape=shapes(min_dims=1), exponent=st.sampled_from([-2, -1, 0, 1, 2, 3]), data=st.data())
def test_pow_with_negative_bases_and_integer_exponents(engine, shape, exponent, data):
    """x ** k for an integer k is smooth for negative x (away from 0 when k < 0): the gradient is
    k * x ** (k - 1), whatever the sign of x (0 for k = 0)."""
    dtype = widest_float_dtype(engine)
    magnitude = st.floats(0.5, 3.0, width=32 if dtype == "float32" else 64)
    flat = data.draw(st.lists(magnitude.map(lambda v: -v), min_size=int(np.prod(shape)),
                              max_size=int(np.prod(shape))), label="negative bases")
    x_values = np.asarray(flat).reshape(shape)
    expected = exponent * x_values ** (exponent - 1) if exponent else np.zeros(shape)
    script = Script(engine)
    script.run(f"x = torch.tensor({literal(x_values)}, dtype=torch.{dtype}, requires_grad=True)",
               f"(x ** {exponent}).sum().backward()")
    script.check_close("x.grad", expected, dtype=dtype, oracle="analytic k x^(k-1)")


@behaviour("GRAD-6")
@pytest.mark.parametrize("function, derivative", [
    pytest.param("relu", lambda x: (x > 0).astype(float), id="relu", marks=pytest.mark.op("relu")),
    pytest.param("abs", np.sign, id="abs", marks=pytest.mark.op("abs"))])
@given(shape=shapes(min_dims=1), data=st.data())
def test_kinks_have_the_minimum_norm_subgradient_at_zero(engine, function, derivative, shape,
                                                        data):
    """relu's derivative is 1 where x > 0 and 0 where x < 0, abs's is the sign of x; at x == 0
    exactly both are 0, the subgradient of minimum norm that the autograd note prescribes for a
    locally convex function."""
    dtype = widest_float_dtype(engine)
    size = int(np.prod(shape))
    flat = data.draw(st.lists(st.sampled_from([0.0, 0.0, -1.5, 2.0, -0.25, 0.5]), min_size=size,
                              max_size=size), label="values with zeros")
    x_values = np.asarray(flat).reshape(shape)
    script = Script(engine)
    script.run(f"x = torch.tensor({literal(x_values)}, dtype=torch.{dtype}, requires_grad=True)",
               f"torch.{function}(x).sum().backward()")
    script.check_close("x.grad", derivative(x_values), dtype=dtype,
                       oracle=f"{function}'(x), 0 at 0")


@behaviour("GRAD-6")
@pytest.mark.op("pow_tensor")
@given(shape=shapes(min_dims=1), data=st.data())
def test_a_zero_base_has_the_limits_of_its_tensor_power(engine, shape, data):
    """At a zero base, a ** b (b >= 1) is differentiable: d/db is 0 (0 ** b is 0 for every b > 0,
    not the b 0 ** b log(0) of the formula) and d/da is b 0 ** (b - 1): 1 for b == 1, else 0."""
    dtype = widest_float_dtype(engine)
    size = int(np.prod(shape))
    a_values, b_values = (np.asarray(data.draw(st.lists(st.sampled_from(choices), min_size=size,
                                                        max_size=size), label=name)).reshape(shape)
                          for name, choices in (("bases with zeros", [0.0, 0.0, 0.5, 2.0]),
                                                ("exponents", [1.0, 1.5, 2.0, 3.0])))
    script = Script(engine)
    script.run(f"a = torch.tensor({literal(a_values)}, dtype=torch.{dtype}, requires_grad=True)",
               f"b = torch.tensor({literal(b_values)}, dtype=torch.{dtype}, requires_grad=True)",
               "(a ** b).sum().backward()")
    with np.errstate(divide="ignore"):
        log_a = np.where(a_values == 0, 0.0, np.log(a_values))
    script.check_close("a.grad", b_values * a_values ** (b_values - 1), dtype=dtype,
                       oracle="b a^(b-1)")
    script.check_close("b.grad", a_values ** b_values * log_a, dtype=dtype,
                       oracle="a^b log(a), 0 where a == 0")
