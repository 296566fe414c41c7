"""Gradient values per op: each op of the op set, alone on leaves, matches the analytic float64
vector-Jacobian product (harness/ops.py, which tests/test_oracles.py checks against central finite
differences, gradcheck-style), plus torch's conventions at awkward points: relu and abs at 0, a
tensor power's zero base, pow with negative bases and integer exponents, and where max, min, amax,
amin and median send the gradient of a tie (OP-*, GRAD-6)."""

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_op_application
from autograd_conformance.harness.ops import GRADIENT_BEHAVIOURS
from autograd_conformance.harness.script import Script, literal, tensor_literal
from autograd_conformance.harness.strategies import (
    EXTREMA,
    cotangents,
    op_applications,
    shapes,
    values,
    widest_float_dtype,
)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs


def _check_op(engine, data, op):
    """One application of `op` on leaves; backward with a random gradient (a vector of ones
    would hide transposed or permuted vector-Jacobian products) against the analytic oracle."""
    program = data.draw(op_applications(engine, op, dtype=widest_float_dtype(engine)),
                        label="program")
    v = data.draw(cotangents(program.output_shape(), program.dtype), label="gradient")
    assert_op_application(Script(engine), program, v, forward=False)


def _op_marks(op: str) -> list:
    """Skip marks for an engine that lacks `op`: its missing_ops, or max_min for an extreme."""
    return [pytest.mark.op(op)] + ([needs("max_min")] if op in EXTREMA else [])


def _family_test(behaviour_id):
    ops = GRADIENT_BEHAVIOURS[behaviour_id]

    @behaviour(behaviour_id)
    # each op its own examples (a family of six shares none), skipped where the engine lacks it
    @pytest.mark.parametrize("op", [pytest.param(op, marks=_op_marks(op)) for op in ops])
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
test_amax_amin = _family_test("OP-9")
test_max_min = _family_test("OP-10")
test_max_min_along_a_dim = _family_test("OP-11")


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



@behaviour("GRAD-15")
@given(shape=shapes(min_dims=1), data=st.data())
def test_masking_after_a_division_by_zero_still_gives_nan(engine, shape, data):
    """x has zeros at drawn positions, and mask is 0 there and 1 elsewhere. mask * (1 / x) has
    the gradient NaN at the zeros (0 times 1/x's infinite derivative) and -1/x^2 elsewhere;
    masking the input first, mask * (1 / (x * mask + (1 - mask))), gives 0 at the zeros. (The
    autograd note's torch.where example, written with the op set's multiplication.)"""
    dtype = widest_float_dtype(engine)
    drawn = data.draw(values(shape, dtype, bound=2.0), label="x").reshape(-1)
    x = (drawn + np.where(drawn < 0, -0.25, 0.25)).astype(dtype).astype(np.float64)
    zeros = sorted(data.draw(st.sets(st.integers(0, x.size - 1), min_size=1), label="zeros"))
    x[zeros] = 0.0
    mask = (x != 0).astype(np.float64)
    others = [i for i in range(x.size) if i not in zeros]
    script = Script(engine)
    script.run(f"x = {tensor_literal(x.reshape(shape), dtype, requires_grad=True)}",
               f"mask = {tensor_literal(mask.reshape(shape), dtype)}",
               "(mask * (1 / x)).sum().backward()")
    script.check(f"np.isnan(values(x.grad).reshape(-1)[{zeros}]).all()",
                 f"masking 1/x after the division: x.grad at the zeros {zeros} is not NaN",
                 show=("x.grad",))
    script.check_close(f"values(x.grad).reshape(-1)[{others}]", -1 / x[others] ** 2,
                       dtype=dtype, oracle="-1/x^2 where x != 0")
    script.run("x.grad = None", "(mask * (1 / (x * mask + (1 - mask)))).sum().backward()")
    script.check_close("x.grad", (mask * -1 / np.where(mask == 1, x, 1.0) ** 2).reshape(shape),
                       dtype=dtype, oracle="-1/x^2 where x != 0, 0 at the masked zeros")

# ----- ties at a max or min: every reduced slice has its extreme at two entries or more ----------
@st.composite
def _tied_inputs(draw, dtype: str, pick, along: bool):
    """An input whose every reduced slice has its extreme (pick: np.max or np.min) at 2 to all of
    its entries, at positions drawn, and the reduction: None (every element) or (dim, keepdim)."""
    shape = list(draw(shapes(min_dims=1, max_dims=3), label="shape"))
    if along:
        dim = draw(st.integers(-len(shape), len(shape) - 1), label="dim")
        param = (dim, draw(st.booleans(), label="keepdim"))
    else:
        dim, param = 0, None
    shape[dim] = max(2, shape[dim])   # room for a tie along dim (or in the whole tensor)
    x = draw(values(tuple(shape), dtype), label="x before the ties")
    generator = random.Random(draw(st.integers(0, 2 ** 32 - 1), label="tie positions"))
    slices = np.moveaxis(x, dim, -1).reshape(-1, shape[dim]) if along else x.reshape(1, -1)
    for row in slices:
        row[generator.sample(range(row.size), generator.randint(2, row.size))] = pick(row)
    return (np.moveaxis(slices.reshape(np.moveaxis(x, dim, -1).shape), -1, dim) if along
            else slices.reshape(x.shape)), param


def _dim_arguments(param) -> str:
    return "" if param is None else f"dim={param[0]}" + (", keepdim=True" if param[1] else "")


def _tie_case(engine, data, op: str, along: bool):
    """x with ties and a random gradient g for out = x.<op>(...); returns the Script, which has
    run the op (as `out`, or `out, indices`) and backward, the dtype, the reduced dim, the mask of
    the tied entries, g with the reduced dim kept, and out's shape."""
    dtype = widest_float_dtype(engine)
    pick = np.max if op.endswith("max") else np.min
    x, param = data.draw(_tied_inputs(dtype, pick, along), label="x and reduction")
    dim = None if param is None else param[0]
    result = pick(x, axis=dim, keepdims=bool(param and param[1]))
    g = data.draw(cotangents(np.shape(result), dtype), label="gradient")
    script = Script(engine)
    script.run(f"x = {tensor_literal(x, dtype, requires_grad=True)}",
               f"out{', indices' if along and op in ('max', 'min') else ''} = "
               f"x.{op}({_dim_arguments(param)})",
               f"out.backward(torch.tensor({literal(g)}, dtype=torch.{dtype}))")
    tied = x == pick(x, axis=dim, keepdims=True)
    kept_g = np.reshape(g, np.shape(pick(x, axis=dim, keepdims=True)))
    return script, dtype, dim, tied, kept_g, np.shape(result)


def _check_even_split(engine, data, op: str, along: bool):
    script, dtype, dim, tied, kept_g, _ = _tie_case(engine, data, op, along)
    script.check_close("x.grad", kept_g / np.sum(tied, axis=dim, keepdims=True) * tied,
                       dtype=dtype, oracle="even split: g / k on each of k tied extremes")


@behaviour("OP-9")
@needs("max_min")
@pytest.mark.parametrize("op", [pytest.param(op, marks=_op_marks(op)) for op in ("amax", "amin")])
@given(data=st.data())
def test_amax_and_amin_split_a_tie_s_gradient_evenly(engine, op, data):
    """x.amax() / x.amin(), or along a dim, where every slice's extreme is tied k >= 2 times:
    each tied entry gets 1/k of its slice's gradient, the other entries nothing."""
    _check_even_split(engine, data, op, along=data.draw(st.booleans(), label="along a dim"))


@behaviour("OP-10")
@needs("max_min")
@pytest.mark.parametrize("op", [pytest.param(op, marks=_op_marks(op)) for op in ("max", "min")])
@given(data=st.data())
def test_max_and_min_of_every_element_split_a_tie_s_gradient_evenly(engine, op, data):
    """x.max() / x.min() with the extreme at k >= 2 entries: each gets 1/k of the gradient, as
    with amax (unlike max(dim), which picks one)."""
    _check_even_split(engine, data, op, along=False)


def _check_zero_dim_along_a_dim(engine, data, op: str):
    """x.max(dim) of a 0-dim x, along dim 0 or -1: one slice of one entry, so out is x, the index
    0, and x gets the whole gradient (a full mantissa half the time: rounded through float32, or
    negated, it shows)."""
    dtype = widest_float_dtype(engine)
    x = data.draw(values((), dtype), label="x")
    param = (data.draw(st.sampled_from([0, -1]), label="dim"),
             data.draw(st.booleans(), label="keepdim"))
    g = data.draw(cotangents((), dtype), label="gradient")
    script = Script(engine)
    script.run(f"x = {tensor_literal(x, dtype, requires_grad=True)}",
               f"out, indices = x.{op}({_dim_arguments(param)})")
    script.check("tuple(out.shape) == tuple(indices.shape) == () and int(indices) == 0",
                 "a 0-dim x gave out and indices of shapes {tuple(out.shape)}, "
                 "{tuple(indices.shape)}, index {indices}")
    script.run(f"out.backward({tensor_literal(g, dtype)})")
    script.check_close("x.grad", g, dtype=dtype, oracle="the whole gradient at the one entry")


@behaviour("OP-11")
@needs("max_min")
@pytest.mark.parametrize("op", [pytest.param(op, marks=_op_marks(f"{op}_dim"))
                                for op in ("max", "min")])
@given(data=st.data())
def test_max_and_min_along_a_dim_send_a_tie_s_gradient_to_the_index_returned(engine, op, data):
    """out, indices = x.max(dim) (or min) where every slice's extreme is tied: indices are those
    of each slice's first extreme, and that entry gets the slice's whole gradient, its tied
    partners nothing; one x in four is 0-dim instead, a slice of one entry."""
    if data.draw(st.integers(0, 3), label="0-dim x") == 0:
        _check_zero_dim_along_a_dim(engine, data, op)
    else:
        script, dtype, dim, tied, kept_g, shape = _tie_case(engine, data, op, along=True)
        first = np.argmax(tied, axis=dim, keepdims=True)
        expected = np.zeros(tied.shape)
        np.put_along_axis(expected, first, kept_g, axis=dim)
        script.check_equal("values(indices).tolist()",
                           first.reshape(shape).astype(float).tolist(),
                           why="each slice's first extreme, the index torch.max documents")
        script.check_close("x.grad", expected, dtype=dtype,
                           oracle="the gradient at the index returned")


@st.composite
def _tied_medians(draw, dtype: str) -> tuple[np.ndarray, int]:
    """An input of two entries or more whose lower median is tied at k >= 2 of them (drawn
    positions), the others a quarter or more below or above it; and k."""
    shape = draw(shapes(min_dims=1, max_dims=3).filter(lambda drawn: np.prod(drawn) >= 2),
                 label="shape")
    n = int(np.prod(shape))
    k = draw(st.integers(2, n), label="tied entries")
    rank = (n - 1) // 2   # the lower median's place among the sorted entries
    below = draw(st.integers(max(0, rank - k + 1), min(rank, n - k)), label="entries below")
    median = float(draw(values((), dtype), label="median"))
    offsets = [0.25 * step for step in draw(st.lists(st.integers(1, 8), min_size=n - k,
                                                     max_size=n - k), label="offsets")]
    entries = ([median] * k + [median - offset for offset in offsets[:below]]
               + [median + offset for offset in offsets[below:]])
    order = draw(st.permutations(range(n)), label="positions")
    x = np.asarray(entries)[order].astype(dtype).astype(np.float64)
    return x.reshape(shape), k


@behaviour("OP-12")
@needs("max_min")
@given(data=st.data())
def test_median_splits_a_tie_s_gradient_evenly(engine, data):
    """x.median() where the lower median is tied at k >= 2 entries: it is that value, and each
    tied entry gets 1/k of the gradient, the other entries nothing."""
    dtype = widest_float_dtype(engine)
    x, k = data.draw(_tied_medians(dtype), label="x")
    median = np.sort(x, axis=None)[(x.size - 1) // 2]
    g = data.draw(cotangents((), dtype), label="gradient")
    script = Script(engine)
    script.run(f"x = {tensor_literal(x, dtype, requires_grad=True)}", "out = x.median()",
               f"out.backward({tensor_literal(g, dtype)})")
    script.check_close("out", median, dtype=dtype, oracle="the lower median")
    script.check_close("x.grad", g / k * (x == median), dtype=dtype,
                       oracle=f"even split: g / {k} on each tied entry")
