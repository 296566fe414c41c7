"""Forward-mode AD, torch.autograd.forward_ad: inside a dual_level, make_dual gives a tensor a
tangent v, every op carries its result's tangent J v along, and unpack_dual reads it (FWD-*).

The tangents are checked against the analytic float64 oracle through the transpose of reverse
mode: row i of J is the gradient for the unit cotangent e_i, so (J v)_i = <v, J^T e_i>
(autograd_conformance/harness/oracles.py's analytic_jacobian), and against central differences of the program along v.
Every level a test opens is closed within the same script step (a `with` block), so that a failing
engine cannot leak an open level into later tests.
"""

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import held_constant
from autograd_conformance.harness.complex_programs import REAL_DTYPE, complex_literal, complex_values
from autograd_conformance.harness.counts import FUNCTION_INPUTS, counts
from autograd_conformance.harness.oracles import (
    FINITE_DIFFERENCE,
    analytic_grads,
    analytic_jacobian,
    central_difference_jacobian,
)
from autograd_conformance.harness.script import Script, literal, tensor_literal
from autograd_conformance.harness.strategies import (
    ALL_OPS,
    EXTREMA,
    SHAPING,
    float_dtypes,
    full_precision_values,
    op_applications,
    programs,
    recorded_intermediates,
    shapes,
    values,
    widest_float_dtype,
)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control
pytestmark = needs("forward_ad")

FORWARD_AD = "fwAD = torch.autograd.forward_ad"
TANGENT_BOUND = 2.0


# ----- drawing dual programs ----------------------------------------------------------------------
def _used_leaves(program):
    """The leaves the output depends on."""
    used = program.ancestors()
    return [leaf.name for leaf in program.leaves if leaf.name in used]


@st.composite
def _tangents(draw, program, names=None):
    """A tangent for each leaf in `names`; by default for at least one leaf the output depends on,
    and for any others."""
    if names is None:
        first = draw(st.sampled_from(_used_leaves(program)), label="dual leaf on the output's path")
        others = draw(st.sets(st.sampled_from([leaf.name for leaf in program.leaves])),
                      label="other dual leaves")
        names = [leaf.name for leaf in program.leaves if leaf.name in others | {first}]
    event(f"dual leaves: {len(names)} of {len(program.leaves)}")
    return {name: draw(values(program.leaf(name).values.shape, program.dtype, TANGENT_BOUND),
                       label=f"tangent of {name}") for name in names}


def _dual_lines(program, tangents, keep_primals=False):
    """Lines that make each leaf named in `tangents` dual, under its own name (its primal kept as
    `<name>_primal` if `keep_primals`)."""
    lines = []
    for name, tangent in tangents.items():
        dual = f"fwAD.make_dual({name}, {tensor_literal(tangent, program.dtype)})"
        lines.append(f"{name}_primal, {name} = {name}, {dual}" if keep_primals else f"{name} = {dual}")
    return lines


def _in_dual_level(script, program, tangents, *after, wrap=None, within=None,
                   keep_primals=False):
    """Define the program's leaves, then in one dual level: make the leaves of `tangents` dual,
    run the program's nodes (changed by `wrap`, and inside `with <within>:` if given), then the
    lines `after`, which read what the checks need before the level closes."""
    lines = program.script_lines(wrap=wrap)
    leaf_lines, node_lines = lines[:len(program.leaves)], lines[len(program.leaves):]
    if within is not None:
        node_lines = [f"with {within}:", *("    " + line for line in node_lines)]
    body = _dual_lines(program, tangents, keep_primals) + node_lines + list(after)
    script.run(FORWARD_AD, *leaf_lines)
    script.run("with fwAD.dual_level():", *("    " + line for line in body))


def _check_jvp(script, program, tangents, name="tangent"):
    """The script's `name` is J v, v the leaves' `tangents`, in the output's shape and dtype."""
    __tracebackhide__ = True
    jvp, magnitude = analytic_jacobian(program, list(tangents)).times(tangents)
    script.check(f"{name} is not None", "the output depends on a dual tensor but has no tangent")
    script.check(f"{name}.dtype == torch.{program.dtype}",
                 f"the tangent does not have the output's dtype {program.dtype}",
                 show=(f"{name}.dtype",))
    script.check_close(name, jvp, dtype=program.dtype, magnitude=magnitude,
                       oracle="J v, J's rows by reverse mode (analytic)")


@st.composite
def _pair(draw, engine):
    """A dtype, a primal and a tangent of one random shape."""
    dtype = draw(float_dtypes(engine), label="dtype")
    shape = draw(shapes(), label="shape")
    return (dtype, draw(full_precision_values(shape, dtype), label="primal"),
            draw(values(shape, dtype, TANGENT_BOUND), label="tangent"))


def _define_pair(script, dtype, primal, tangent):
    script.run(FORWARD_AD, f"x = {tensor_literal(primal, dtype)}", f"v = {tensor_literal(tangent, dtype)}")


# ----- the level ----------------------------------------------------------------------------------
@behaviour("FWD-1")
@control("test_forward_ad.py::test_unpack_dual_gives_the_primal_and_the_tangent")
@given(data=st.data())
def test_make_dual_needs_an_open_level_and_levels_do_not_nest(engine, data):
    dtype, primal, tangent = data.draw(_pair(engine), label="pair")
    script = Script(engine)
    _define_pair(script, dtype, primal, tangent)
    script.raises("fwAD.make_dual(x, v)  # before any level")
    script.run("with fwAD.dual_level():", "    d = fwAD.make_dual(x, v)")
    script.raises("fwAD.make_dual(x, v)  # after the level closed")
    script.raises("with fwAD.dual_level():\n    with fwAD.dual_level():\n        pass")
    script.run("with fwAD.dual_level():  # the refused level left no level open",
               "    d = fwAD.make_dual(x, v)")


@behaviour("FWD-1")
@given(data=st.data())
def test_make_dual_and_unpack_dual_take_the_open_level(engine, data):
    """`with dual_level() as level` gives the open level's index, which make_dual and unpack_dual
    take as level=: the dual tensor carries its tangent at that level; the next index is no open
    level, and make_dual or unpack_dual given it raise RuntimeError."""
    dtype, primal, tangent = data.draw(_pair(engine), label="pair")
    script = Script(engine)
    _define_pair(script, dtype, primal, tangent)
    with script.control():
        script.run("with fwAD.dual_level() as level:", "    tangent = fwAD.unpack_dual("
                   "fwAD.make_dual(x, v, level=level), level=level).tangent")
        script.check_close("tangent", tangent, dtype=dtype, oracle="the tangent given at that level")
    script.raises("with fwAD.dual_level() as level:\n    fwAD.make_dual(x, v, level=level + 1)")
    script.raises("with fwAD.dual_level() as level:\n"
                  "    fwAD.unpack_dual(fwAD.make_dual(x, v, level=level), level=level + 1)")


# ----- make_dual and unpack_dual ------------------------------------------------------------------
@behaviour("FWD-2")
@given(data=st.data())
def test_unpack_dual_gives_the_primal_and_the_tangent(engine, data):
    """unpack_dual(make_dual(x, v)) is a named pair: .primal (also [0]) has x's values and no
    tangent of its own, .tangent (also [1]) is v itself, in v's dtype also where that is not x's
    (the tangent is kept as given); the dual tensor has x's values, shape and dtype."""
    dtype, primal, tangent = data.draw(_pair(engine), label="pair")
    tangent_dtype = data.draw(float_dtypes(engine), label="tangent dtype")
    script = Script(engine)
    script.run(FORWARD_AD, f"x = {tensor_literal(primal, dtype)}",
               f"v = {tensor_literal(tangent, tangent_dtype)}")
    script.run("with fwAD.dual_level():",
               "    d = fwAD.make_dual(x, v)",
               "    unpacked = fwAD.unpack_dual(d)",
               "    primals_tangent = fwAD.unpack_dual(unpacked.primal).tangent")
    script.check("isinstance(unpacked, tuple) and len(unpacked) == 2",
                 "unpack_dual returned {type(unpacked)}, not a pair")
    script.check("unpacked.primal is unpacked[0] and unpacked.tangent is unpacked[1]",
                 "unpack_dual's fields primal and tangent are not its items 0 and 1")
    script.check("unpacked.tangent is v", "the tangent unpack_dual gives is not the tensor v "
                 "given to make_dual", show=("unpacked.tangent",))
    script.check(f"unpacked.tangent.dtype == torch.{tangent_dtype} and d.dtype == torch.{dtype} "
                 f"and unpacked.primal.dtype == torch.{dtype}",
                 f"the dual tensor and its primal are not both {dtype}, or its tangent is not "
                 f"{tangent_dtype}",
                 show=("d.dtype", "unpacked.primal.dtype", "unpacked.tangent.dtype"))
    for name, expected in (("d", "x"), ("unpacked.primal", "x"), ("unpacked.tangent", "v")):
        script.check(f"tuple({name}.shape) == tuple({expected}.shape) "
                     f"and np.array_equal(to_numpy({name}), to_numpy({expected}))",
                     f"{name} does not have the shape and values of {expected}",
                     show=(f"to_numpy({name}).tolist()", f"to_numpy({expected}).tolist()"))
    script.check("primals_tangent is None", "the primal unpack_dual gave has a tangent of its own")


@behaviour("FWD-2")
@needs("inplace")
@given(data=st.data())
def test_a_dual_tensor_aliases_its_primal(engine, data):
    """make_dual(x, v) shares x's memory: an in-place change of x (which requires no grad) shows
    in the dual tensor and in the primal unpack_dual gives."""
    dtype, primal, tangent = data.draw(_pair(engine), label="pair")
    script = Script(engine)
    _define_pair(script, dtype, primal, tangent)
    script.run("with fwAD.dual_level():",
               "    d = fwAD.make_dual(x, v)",
               "    x.add_(1.0)",
               "    changed, changed_primal = to_numpy(d), to_numpy(fwAD.unpack_dual(d).primal)")
    expected = (primal.astype(dtype) + 1).astype(dtype)
    for name in ("changed", "changed_primal"):
        script.check_close(name, expected, dtype=dtype, oracle="x's values after x.add_(1.0)")


@behaviour("FWD-2", "FWD-4")
def test_the_tutorial_example(engine):
    """The forward-mode AD tutorial's function x ** 2 + y ** 2 with x dual and y plain: the
    tangent is 2 x v (exact in floating point for these values)."""
    script = Script(engine)
    script.run(FORWARD_AD,
               "primal = torch.tensor([[1.0, -2.0], [0.5, 3.0]])",
               "tangent = torch.tensor([[1.0, 0.5], [-2.0, 0.25]])",
               "plain = torch.tensor([[2.0, 1.0], [-1.0, 0.0]])",
               "with fwAD.dual_level():",
               "    dual_input = fwAD.make_dual(primal, tangent)",
               "    dual_output = dual_input ** 2 + plain ** 2",
               "    jvp = fwAD.unpack_dual(dual_output).tangent",
               "    value = fwAD.unpack_dual(dual_output).primal")
    script.check("jvp is not None and to_numpy(jvp).tolist() == [[2.0, -2.0], [-2.0, 1.5]]",
                 "the tangent of x ** 2 + y ** 2 is {jvp}, expected 2 x v = [[2, -2], [-2, 1.5]]")
    script.check("to_numpy(value).tolist() == [[5.0, 5.0], [1.25, 9.0]]",
                 "the primal of x ** 2 + y ** 2 is {value}, expected [[5, 5], [1.25, 9]]")


@behaviour("FWD-3")
@given(data=st.data())
def test_tensors_without_a_tangent_unpack_to_none(engine, data):
    """Inside a level, a tensor that is not dual and depends on no dual tensor (a plain leaf, an
    op result computed from plain tensors only) has tangent None, and a plain leaf unpacks to its
    own values; outside a level, a plain leaf has tangent None too (and every tensor: FWD-5)."""
    program = data.draw(programs(engine, output="any"), label="program")
    leaves = [leaf.name for leaf in program.leaves]
    plain_leaf = data.draw(st.sampled_from(leaves), label="plain leaf")
    others = [name for name in leaves if name != plain_leaf]
    dual = data.draw(st.sets(st.sampled_from(others)) if others else st.just(set()),
                     label="dual leaves")
    tangents = data.draw(_tangents(program, [name for name in leaves if name in dual]),
                         label="tangents")
    plain = [name for name in program.variables()[:-1] if not program.ancestors(name) & dual]
    script = Script(engine)
    script.run(FORWARD_AD, *program.script_lines()[:len(program.leaves)])
    script.check(f"fwAD.unpack_dual({plain_leaf}).tangent is None",
                 f"outside any level {plain_leaf} has a tangent")
    _in_dual_level(script, program, tangents,
                   f"plain = {{name: fwAD.unpack_dual(value).tangent for name, value in "
                   f"zip({plain!r}, [{', '.join(plain)}])}}",
                   f"primal = fwAD.unpack_dual({plain_leaf}).primal")
    script.check("all(tangent is None for tangent in plain.values())",
                 "these tensors depend on no dual tensor, yet have a tangent: "
                 "{[name for name, tangent in plain.items() if tangent is not None]}")
    script.check(f"np.array_equal(to_numpy(primal), to_numpy({plain_leaf}))",
                 f"unpack_dual({plain_leaf}).primal has other values than {plain_leaf}")


@behaviour("FWD-12")
@given(data=st.data(), op=st.sampled_from(["x.sgn()", "x ** 0", "x ** 0.0"]))
def test_a_zero_derivative_gives_zero_tangents_whatever_the_tangent(engine, data, op):
    """sgn and x ** 0 have the derivative 0: the result's tangent is +0.0 everywhere, also where
    x's tangent is nan or inf (not the tangent times 0, which is nan there, or -0.0 where the
    tangent is negative)."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    shape = data.draw(shapes(), label="shape")
    x = data.draw(values(shape, dtype), label="x")
    v = data.draw(values(shape, dtype), label="tangent")
    specials = data.draw(st.lists(st.sampled_from([np.nan, np.inf, -np.inf]),
                                  min_size=v.size, max_size=v.size), label="special tangents")
    where = data.draw(st.lists(st.booleans(), min_size=v.size, max_size=v.size), label="where")
    v = np.where(np.reshape(where, shape), np.reshape(specials, shape), v)
    script = Script(engine)
    script.run(FORWARD_AD, f"x = {tensor_literal(x, dtype)}",
               f"v = torch.tensor({literal(v)}, dtype=torch.{dtype})",
               "with fwAD.dual_level():",
               f"    y = (lambda x: {op})(fwAD.make_dual(x, v))",
               "    tangent = to_numpy(fwAD.unpack_dual(y).tangent)")
    script.check("np.array_equal(tangent, np.zeros_like(tangent)) and not np.signbit(tangent).any()",
                 f"the tangent of {op} is {{tangent.tolist()}}, expected +0.0 throughout")


# ----- tangents are Jacobian-vector products ------------------------------------------------------
@behaviour("FWD-4")
@given(data=st.data())
def test_tangents_are_jacobian_vector_products(engine, data):
    """A random program of the op set with one to four dual leaves on the output's path (fresh
    ones feed the output where it has too few: Program.fed_by), each its own tangent: the
    output's tangent is J v, the sum of each leaf's block of J times its tangent, of the output's
    shape and dtype, with J's rows the analytic gradients for the unit cotangents (reverse
    mode's transpose); unpack_dual of each dual leaf gives its own tangent."""
    count = data.draw(counts(FUNCTION_INPUTS), label="number of dual leaves")
    program = data.draw(programs(engine, output="any"), label="program").fed_by(count)
    names = data.draw(st.lists(st.sampled_from(_used_leaves(program)), min_size=count,
                               max_size=count, unique=True), label="dual leaves")
    tangents = data.draw(_tangents(program, names), label="tangents")
    script = Script(engine)
    _in_dual_level(script, program, tangents, "tangent = fwAD.unpack_dual(out).tangent",
                   f"own = [{', '.join(f'fwAD.unpack_dual({name}).tangent' for name in names)}]")
    _check_jvp(script, program, tangents)
    for k, name in enumerate(names):
        script.check_close(f"own[{k}]", tangents[name], dtype=program.dtype,
                           oracle=f"the tangent given to {name}")


@behaviour("FWD-4")
@pytest.mark.parametrize("op", [  # each op its own examples, as test_op_grads.py's
    pytest.param(op, marks=[pytest.mark.op(op)] + ([needs("max_min")] if op in EXTREMA else []))
    for op in ALL_OPS + EXTREMA])
@given(data=st.data())
def test_each_op_carries_its_jacobian_vector_product(engine, data, op):
    """One application of each op of the op set (inside its smooth domain, every parameter and
    broadcast its generator draws) with some inputs dual: the output's tangent is J v. A random
    program puts a given op behind a dual input in few of its examples; this test in all."""
    program = data.draw(op_applications(engine, op), label="program")
    tangents = data.draw(_tangents(program), label="tangents")
    script = Script(engine)
    _in_dual_level(script, program, tangents, "tangent = fwAD.unpack_dual(out).tangent")
    _check_jvp(script, program, tangents)


@behaviour("FWD-4")
@given(rows=st.integers(2, 3), columns=st.integers(2, 4), flat=st.booleans(), data=st.data())
def test_a_reshape_that_copies_carries_the_tangent(engine, rows, columns, flat, data):
    """A transposed matrix's elements are not in reading order, so reshaping it copies them (where
    a contiguous tensor's reshape is a view): the tangent is the transposed tangent reshaped
    the same way. Full-mantissa values, so a round trip through float32 shows."""
    dtype = widest_float_dtype(engine)
    primal = data.draw(full_precision_values((rows, columns), dtype), label="primal")
    tangent = data.draw(full_precision_values((rows, columns), dtype), label="tangent")
    shape = (rows * columns,) if flat else (rows * columns, 1)
    script = Script(engine)
    script.run(FORWARD_AD, f"x = {tensor_literal(primal, dtype)}",
               f"v = {tensor_literal(tangent, dtype)}")
    script.run("with fwAD.dual_level():",
               f"    y = fwAD.make_dual(x, v).transpose(0, 1).reshape({shape})",
               "    tangent = fwAD.unpack_dual(y).tangent")
    script.check(f"tangent is not None and tuple(tangent.shape) == {shape}",
                 f"the tangent of the reshaped tensor is None or not of shape {shape}",
                 show=("tangent",))
    script.check_close("tangent", tangent.T.reshape(shape), dtype=dtype,
                       oracle="the tangent transposed and reshaped")


def _drawn_from(data, shape, choices, label):
    size = int(np.prod(shape))
    return np.asarray(data.draw(st.lists(st.sampled_from(choices), min_size=size, max_size=size),
                                label=label)).reshape(shape)


@behaviour("FWD-4")
@given(shape=shapes(min_dims=1), data=st.data())
def test_tangents_at_a_zero_base_have_the_limits_of_the_tensor_power(engine, shape, data):
    """Where reverse mode takes the limits of a ** b at a zero base (GRAD-6), so does forward
    mode: the tangent is b a^(b-1) da + a^b log(a) db with the second term 0 where a == 0 (and
    where a == 1, log(1) being 0), not 0 * log(0)."""
    dtype = widest_float_dtype(engine)
    a, b = (_drawn_from(data, shape, choices, name) for name, choices in
            (("bases with zeros", [0.0, 0.0, 0.5, 1.0, 2.0]), ("exponents", [1.0, 1.5, 2.0, 3.0])))
    da, db = (data.draw(values(shape, dtype, TANGENT_BOUND), label=f"tangent of {name}")
              for name in ("a", "b"))
    script = Script(engine)
    script.run(FORWARD_AD, f"a = {tensor_literal(a, dtype)}", f"b = {tensor_literal(b, dtype)}")
    script.run("with fwAD.dual_level():",
               f"    a = fwAD.make_dual(a, {tensor_literal(da, dtype)})",
               f"    b = fwAD.make_dual(b, {tensor_literal(db, dtype)})",
               "    tangent = fwAD.unpack_dual(a ** b).tangent")
    with np.errstate(divide="ignore"):
        log_a = np.where(a == 0, 0.0, np.log(a))
    script.check_close("tangent", b * a ** (b - 1) * da + a ** b * log_a * db, dtype=dtype,
                       oracle="b a^(b-1) da + a^b log(a) db, log(a) taken as 0 where a == 0")


@behaviour("FWD-4")
@pytest.mark.parametrize("function, derivative", [("relu", lambda x: (x > 0).astype(float)),
                                                  ("abs", np.sign)])
@given(shape=shapes(min_dims=1), data=st.data())
def test_tangents_at_a_kink_are_zero(engine, function, derivative, shape, data):
    """relu and abs at exactly 0 pass on no tangent, as their gradients there are 0 (GRAD-6)."""
    dtype = widest_float_dtype(engine)
    x = _drawn_from(data, shape, [0.0, 0.0, 0.5, -1.5], "inputs with zeros")
    v = data.draw(values(shape, dtype, TANGENT_BOUND), label="tangent")
    script = Script(engine)
    script.run(FORWARD_AD, f"x = {tensor_literal(x, dtype)}")
    script.run("with fwAD.dual_level():",
               f"    x = fwAD.make_dual(x, {tensor_literal(v, dtype)})",
               f"    tangent = fwAD.unpack_dual(torch.{function}(x)).tangent")
    script.check_close("tangent", derivative(x) * v, dtype=dtype,
                       oracle=f"{function}'(x) v, with {function}'(0) = 0")


@behaviour("FWD-4")
@pytest.mark.parametrize("expression, derivative", [
    ("3.0 - x", lambda x: -np.ones_like(x)), ("3.0 / x", lambda x: -3.0 / x ** 2),
    ("x / 3.0", lambda x: np.full_like(x, 1 / 3.0)), ("x.sgn()", np.zeros_like)])
@given(shape=shapes(), data=st.data())
def test_number_operands_and_sgn_carry_tangents(engine, expression, derivative, shape, data):
    """Ops with a Python number on either side, and sgn (whose tangent is 0 away from 0), are
    ops of the set too: the tangent is the elementwise derivative times v."""
    dtype = widest_float_dtype(engine)
    x = data.draw(full_precision_values(shape, dtype), label="x")  # magnitudes >= 0.25: no pole
    v = data.draw(values(shape, dtype, TANGENT_BOUND), label="tangent")
    script = Script(engine)
    script.run(FORWARD_AD, f"x = {tensor_literal(x, dtype)}")
    script.run("with fwAD.dual_level():", f"    x = fwAD.make_dual(x, {tensor_literal(v, dtype)})",
               f"    tangent = fwAD.unpack_dual({expression}).tangent")
    script.check_close("tangent", derivative(x) * v, dtype=dtype, oracle=f"d({expression})/dx v")


@behaviour("FWD-4")
@needs("float64")
@pytest.mark.parametrize("operator, derivatives", [
    ("+", lambda x, y: (1.0, 1.0)), ("-", lambda x, y: (1.0, -1.0)),
    ("*", lambda x, y: (y, x)), ("/", lambda x, y: (1 / y, -x / y ** 2))])
@given(shape=shapes(), wide_first=st.booleans(), data=st.data())
def test_two_duals_with_tangents_of_two_dtypes(engine, operator, derivatives, shape, wide_first,
                                               data):
    """x op y, both float32 dual tensors, one with a float32 tangent and the other (first or
    second) with a float64 one (make_dual keeps it, FWD-2): the result's tangent has the wider
    dtype, float64, whichever operand brings it, and is dx d/dx + dy d/dy."""
    x, y = (data.draw(full_precision_values(shape, "float32"), label=name) for name in "xy")
    vx, vy = (data.draw(values(shape, "float64", TANGENT_BOUND), label=f"tangent of {name}")
              for name in "xy")
    if wide_first:
        vy = vy.astype(np.float32).astype(np.float64)  # exact in the float32 tangent
    else:
        vx = vx.astype(np.float32).astype(np.float64)
    dx, dy = derivatives(x, y)
    x_dtype, y_dtype = ("float64", "float32") if wide_first else ("float32", "float64")
    script = Script(engine)
    script.run(FORWARD_AD, f"x = {tensor_literal(x, 'float32')}",
               f"y = {tensor_literal(y, 'float32')}")
    script.run("with fwAD.dual_level():",
               f"    x = fwAD.make_dual(x, {tensor_literal(vx, x_dtype)})",
               f"    y = fwAD.make_dual(y, {tensor_literal(vy, y_dtype)})",
               f"    tangent = fwAD.unpack_dual(x {operator} y).tangent")
    script.check("tangent.dtype == torch.float64",
                 f"the {'first' if wide_first else 'second'} operand's tangent is float64, the "
                 "result's is {tangent.dtype}")
    script.check_close("tangent", dx * vx + dy * vy, dtype="float32",
                       oracle=f"d(x {operator} y) along (dx, dy)")


@behaviour("FWD-4")
@needs("nn")
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@given(shape=shapes(min_dims=2, max_dims=2), data=st.data())
def test_linear_layers_and_mse_loss_carry_tangents(engine, reduction, shape, data):
    """Through nn.Linear (a dual input x and a dual weight W, put in the parameter's place:
    dx W^T + x dW^T) and nn.MSELoss (dual input and target: 2 (x - y)(dx - dy), averaged or
    summed as the reduction says)."""
    dtype = widest_float_dtype(engine)
    arrays = {name: data.draw(full_precision_values(array_shape, dtype), label=name)
              for name, array_shape in (("x", shape), ("y", shape), ("w", (2, shape[1])))}
    tangents = {name: data.draw(values(arrays[name].shape, dtype, TANGENT_BOUND),
                                label=f"tangent of {name}") for name in ("x", "y", "w")}
    script = Script(engine)
    script.run(FORWARD_AD, *(f"{name} = {tensor_literal(array, dtype)}"
                             for name, array in arrays.items()),
               f"layer = torch.nn.Linear({shape[1]}, 2)", "del layer.weight",
               f"layer.bias = torch.nn.Parameter({tensor_literal(np.zeros(2), dtype)})")
    script.run("with fwAD.dual_level():",
               *(f"    {name} = fwAD.make_dual({name}, {tensor_literal(tangent, dtype)})"
                 for name, tangent in tangents.items()),
               "    layer.weight = w",
               "    through_layer = fwAD.unpack_dual(layer(x)).tangent",
               f"    through_loss = fwAD.unpack_dual(torch.nn.MSELoss(reduction={reduction!r})"
               "(x, y)).tangent")
    (x, dx), (w, dw) = ((arrays[name], tangents[name]) for name in ("x", "w"))
    script.check_close("through_layer", dx @ w.T + x @ dw.T, dtype=dtype, oracle="dx W^T + x dW^T",
                       magnitude=float(np.max(np.abs(dx) @ np.abs(w.T) + np.abs(x) @ np.abs(dw.T))))
    each = 2 * (arrays["x"] - arrays["y"]) * (tangents["x"] - tangents["y"])
    reduce = {"mean": np.mean, "sum": np.sum, "none": lambda a: a}[reduction]
    script.check_close("through_loss", reduce(each), dtype=dtype,
                       oracle=f"2 (x - y)(dx - dy), reduction {reduction!r}",
                       magnitude=float(np.max(reduce(np.abs(each)))))


@behaviour("FWD-11")
@needs("nn")
@given(data=st.data())
def test_a_linear_layer_adds_its_three_tangent_terms_in_torch_s_order(engine, data):
    """nn.Linear(1, n) of a 2-D dual input x, with a dual weight W and a dual bias b (each put in
    the parameter's place) is addmm, whose tangent torch adds left to right: (b_t + x_t W^T) +
    x W_t^T. At x = W = 1 with b_t = 1 and x_t = W_t = e, half an ulp of 1, that rounds to 1
    everywhere, where the reversed sum (x W_t^T + x_t W^T) + b_t gives 1 + 2e."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    rows, features = data.draw(st.integers(1, 3), label="rows"), data.draw(st.integers(1, 3), label="features")
    bias = data.draw(full_precision_values((features,), dtype), label="bias")
    half_ulp = 2.0 ** (-24 if dtype == "float32" else -53)
    script = Script(engine)
    script.run(FORWARD_AD, f"layer = torch.nn.Linear(1, {features})", "del layer.weight", "del layer.bias",
               f"x = torch.ones({rows}, 1, dtype=torch.{dtype})",
               f"w = torch.ones({features}, 1, dtype=torch.{dtype})",
               f"b = {tensor_literal(bias, dtype)}")
    script.run("with fwAD.dual_level():",
               f"    x = fwAD.make_dual(x, torch.ones_like(x) * {half_ulp!r})",
               f"    layer.weight = fwAD.make_dual(w, torch.ones_like(w) * {half_ulp!r})",
               "    layer.bias = fwAD.make_dual(b, torch.ones_like(b))",
               "    tangent = fwAD.unpack_dual(layer(x)).tangent")
    script.check_equal("to_numpy(tangent).tolist()", [[1.0] * features] * rows,
                       why="(1 + e) + e in floating point: the bias's term first, then x_t W^T, "
                       "then x W_t^T")


@behaviour("FWD-4")
@needs("float64")
@given(data=st.data())
def test_tangents_agree_with_central_differences(engine, data):
    """A float64 program's output tangent equals the central differences of the program along v,
    (f(x + h v) - f(x - h v)) / 2h: an oracle that asks neither the engine nor the vjps."""
    program = data.draw(programs(engine, output="any", dtype="float64"), label="program")
    tangents = data.draw(_tangents(program), label="tangents")

    def along_v(step):
        moved = {name: program.leaf(name).values + step * v for name, v in tangents.items()}
        return program.evaluate(moved)[program.output]

    expected = central_difference_jacobian(along_v, np.zeros(()))
    script = Script(engine)
    _in_dual_level(script, program, tangents, "tangent = fwAD.unpack_dual(out).tangent")
    script.check("tangent is not None", "the output depends on a dual tensor but has no tangent")
    script.check_close("tangent", expected, dtype="float64", tolerance=FINITE_DIFFERENCE,
                       oracle="central differences along v")


# ----- leaving the level --------------------------------------------------------------------------
@behaviour("FWD-5")
@given(data=st.data())
def test_leaving_the_level_deletes_every_tangent(engine, data):
    """After the level closes, every tensor of the program, dual leaves and results alike, has
    tangent None and keeps its values; a new level does not bring the tangents back, and a former
    dual tensor can be made dual again there."""
    program = data.draw(programs(engine, output="any"), label="program")
    tangents = data.draw(_tangents(program), label="tangents")
    names = program.variables()
    tensors = f"[{', '.join(names)}]"
    script = Script(engine)
    _in_dual_level(script, program, tangents, f"inside = [to_numpy(t).copy() for t in {tensors}]")
    script.run(f"after = {{name: fwAD.unpack_dual(t).tangent for name, t in zip({names!r}, {tensors})}}")
    script.check("all(tangent is None for tangent in after.values())",
                 "outside the level these still have a tangent: "
                 "{[name for name, tangent in after.items() if tangent is not None]}")
    script.check(f"all(np.array_equal(to_numpy(t), kept) for t, kept in zip({tensors}, inside))",
                 "leaving the level changed the values of a tensor")
    first, tangent = next(iter(tangents.items()))
    script.run("with fwAD.dual_level():",
               f"    again = [fwAD.unpack_dual(t).tangent for t in {tensors}]",
               f"    redual = fwAD.make_dual({first}, {tensor_literal(tangent, program.dtype)})",
               "    retangent = fwAD.unpack_dual(redual).tangent")
    script.check("all(tangent is None for tangent in again)",
                 "a new level brought back tangents of the closed one")
    script.check(f"retangent is not None and np.array_equal(to_numpy(retangent), {literal(tangent)})",
                 f"{first}, dual in the closed level, did not take its new tangent",
                 show=("retangent",))


# ----- what make_dual refuses ---------------------------------------------------------------------
def _other_shapes(shape):
    """Shapes other than `shape` that a careless check might accept: with a size-1 dim added in
    front or at the end, one broadcasting to it, the flat shape, the reversed one."""
    numel = int(np.prod(shape, dtype=int))
    candidates = [(1,) + shape, shape + (1,), shape[1:] if shape else (1,), (numel,), shape[::-1]]
    return sorted({candidate for candidate in candidates if candidate != shape})


@behaviour("FWD-6")
@control("test_forward_ad.py::test_unpack_dual_gives_the_primal_and_the_tangent")
@given(data=st.data())
def test_make_dual_refuses_a_tangent_of_another_shape(engine, data):
    dtype, primal, _ = data.draw(_pair(engine), label="pair")
    other = data.draw(st.sampled_from(_other_shapes(primal.shape)), label="tangent shape")
    tangent = data.draw(values(other, dtype, TANGENT_BOUND), label="tangent")
    script = Script(engine)
    _define_pair(script, dtype, primal, tangent)
    script.raises(f"with fwAD.dual_level():\n    fwAD.make_dual(x, v)  # {tuple(primal.shape)} and {other}")


@behaviour("FWD-6")
@needs("complex")
@given(data=st.data(), dtype=st.sampled_from(["complex64", "complex128"]),
       which=st.sampled_from(["primal", "tangent", "both"]))
def test_make_dual_accepts_complex_primals_and_tangents(engine, data, dtype, which):
    """Complex tensors are accepted as primals and as tangents (only dtypes that are neither
    floating point nor complex are refused): twice the dual tensor has the tangent 2 v."""
    shape = data.draw(shapes(), label="shape")
    primal, tangent = (data.draw(complex_values(shape, dtype), label=name)
                       for name in ("primal", "tangent"))
    script = Script(engine)
    for name, array, is_complex in (("x", primal, which != "tangent"),
                                    ("v", tangent, which != "primal")):
        literal_ = complex_literal(array) if is_complex else literal(array.real)
        script.run(f"{name} = torch.tensor({literal_}, "
                   f"dtype=torch.{dtype if is_complex else REAL_DTYPE[dtype]})")
    script.run(FORWARD_AD, "with fwAD.dual_level():",
               "    tangent = fwAD.unpack_dual(fwAD.make_dual(x, v) * 2).tangent")
    script.check("tangent is not None", "twice the dual tensor has no tangent")
    expected = 2 * (tangent if which != "primal" else tangent.real)
    for part, take in (("real", np.real), ("imag", np.imag)):
        script.check_close(f"to_numpy(tangent).{part}", take(expected), dtype=REAL_DTYPE[dtype],
                           oracle="2 v")


@behaviour("FWD-6")
@control("test_forward_ad.py::test_unpack_dual_gives_the_primal_and_the_tangent")
@given(data=st.data(), which=st.sampled_from(["primal", "tangent", "both"]))
def test_make_dual_refuses_integer_primals_and_tangents(engine, data, which):
    dtype, primal, tangent = data.draw(_pair(engine), label="pair")
    script = Script(engine)
    _define_pair(script, dtype, primal, tangent)
    script.run(f"xi = torch.tensor({literal(np.round(primal))}, dtype=torch.int64)",
               f"vi = torch.tensor({literal(np.round(tangent))}, dtype=torch.int64)")
    arguments = {"primal": "xi, v", "tangent": "x, vi", "both": "xi, vi"}[which]
    script.raises(f"with fwAD.dual_level():\n    fwAD.make_dual({arguments})", error="ValueError")


# ----- grad modes and detach ----------------------------------------------------------------------
@behaviour("FWD-7")
@given(data=st.data())
def test_no_grad_does_not_stop_tangents(engine, data):
    """The program's nodes run under no_grad inside the level: the output's tangent is still J v."""
    program = data.draw(programs(engine, output="any"), label="program")
    tangents = data.draw(_tangents(program), label="tangents")
    script = Script(engine)
    _in_dual_level(script, program, tangents, "tangent = fwAD.unpack_dual(out).tangent",
                   within="torch.no_grad()")
    _check_jvp(script, program, tangents)


@behaviour("FWD-7")
@needs("grad_mode")
@given(data=st.data(), within=st.sampled_from(["torch.set_grad_enabled(False)",
                                               "torch.set_grad_enabled(True)", "torch.enable_grad()",
                                               "torch.no_grad(), torch.enable_grad()"]))
def test_grad_mode_switches_do_not_stop_tangents(engine, data, within):
    """The program's nodes run inside the level under set_grad_enabled(flag) or enable_grad (also
    nested in no_grad): neither switches forward mode off or on, the output's tangent is J v."""
    program = data.draw(programs(engine, output="any"), label="program")
    tangents = data.draw(_tangents(program), label="tangents")
    script = Script(engine)
    _in_dual_level(script, program, tangents, "tangent = fwAD.unpack_dual(out).tangent",
                   within=within)
    _check_jvp(script, program, tangents)


@behaviour("FWD-8")
@given(data=st.data())
def test_detach_drops_the_tangent(engine, data):
    """Some nodes that carry a tangent are replaced by their detach(): those have none, and the
    output's tangent is J v of the program with them held constant (None where every path from a
    dual leaf passes through them)."""
    program = data.draw(programs(engine, output="any", candidates=recorded_intermediates),
                        label="program")
    # The dual leaves are those that require grad: then the nodes that carry a tangent and feed
    # the output are exactly the recorded intermediates.
    tangents = data.draw(_tangents(program, [leaf.name for leaf in program.leaves
                                             if leaf.requires_grad]), label="tangents")
    detached = sorted(data.draw(st.sets(st.sampled_from(recorded_intermediates(program)), min_size=1),
                                label="detached"))
    script = Script(engine)
    _in_dual_level(script, program, tangents,
                   f"detached = [fwAD.unpack_dual(t).tangent for t in [{', '.join(detached)}]]",
                   "tangent = fwAD.unpack_dual(out).tangent",
                   wrap=lambda name, line: [line, f"{name} = {name}.detach()"] if name in detached
                   else [line])
    script.check("all(t is None for t in detached)",
                 f"detach() of {detached} kept a tangent", show=("detached",))
    constant = held_constant(program, detached)
    live = {name: v for name, v in tangents.items() if name in constant.ancestors()}
    event(f"a path around the detached nodes: {bool(live)}")
    if live:
        _check_jvp(script, constant, live)
    else:
        script.check("tangent is None", "every path from a dual leaf is detached, yet the output "
                                        "has the tangent {tangent}")


@behaviour("FWD-8")
@needs("inplace")
@given(data=st.data())
def test_detach_in_place_drops_the_tangent(engine, data):
    """(x * w).detach_() inside a level: the result keeps its values and loses its tangent."""
    dtype, primal, tangent = data.draw(_pair(engine), label="pair")
    weight = data.draw(full_precision_values(primal.shape, dtype), label="w")
    script = Script(engine)
    _define_pair(script, dtype, primal, tangent)
    script.run(f"w = {tensor_literal(weight, dtype)}",
               "with fwAD.dual_level():",
               "    y = fwAD.make_dual(x, v) * w",
               "    before = fwAD.unpack_dual(y).tangent",
               "    y.detach_()",
               "    after = fwAD.unpack_dual(y).tangent")
    script.check("before is not None and after is None",
                 "the tangent of x * w before detach_() is {before}, after it {after}; "
                 "expected one, then None")
    script.check_close("y", primal * weight, dtype=dtype, oracle="x * w")


def _computed_by_no_view(program):
    """The output's name where an op other than a view computes it, else nothing."""
    return [node.name for node in program.nodes
            if node.name == program.output and node.op not in SHAPING]


@behaviour("FWD-9")
@needs("inference_mode")
@given(data=st.data())
def test_inference_mode_turns_forward_ad_off(engine, data):
    """The program's nodes run under inference_mode inside the level: the output, computed by an op
    that is no view, has no tangent, nor does a dual leaf read inside it; once inference_mode is
    left, the dual leaves have their tangents again. (A view of a dual tensor taken inside is no
    inference tensor, and keeps a tangent in torch: not pinned here.)"""
    program = data.draw(programs(engine, output="any", candidates=_computed_by_no_view),
                        label="program")
    tangents = data.draw(_tangents(program), label="tangents")
    duals = f"[{', '.join(tangents)}]"
    script = Script(engine)
    _in_dual_level(script, program, tangents,
                   "with torch.inference_mode():",
                   f"    inside = [fwAD.unpack_dual(t).tangent for t in {duals}]",
                   "tangent = fwAD.unpack_dual(out).tangent",
                   f"back = [fwAD.unpack_dual(t).tangent for t in {duals}]",
                   within="torch.inference_mode()")
    script.check("tangent is None", "the output computed under inference_mode has the tangent {tangent}")
    script.check("all(t is None for t in inside)",
                 "under inference_mode unpack_dual gave tangents: {inside}")
    for index, (name, v) in enumerate(tangents.items()):
        script.check_close(f"back[{index}]", v, dtype=program.dtype,
                           oracle=f"the tangent given to {name}")


# ----- forward mode leaves reverse mode alone -----------------------------------------------------
# torch 2.13's backward inside a dual level fails ("ZeroTensors are immutable") through the abs of
# a dual tensor that an earlier op also took: `v = x + 1; (torch.abs(x) + v).backward()`. So the
# programs run backward in the level leave abs out.
WITHOUT_ABS = tuple(op for op in ALL_OPS if op != "abs")


@behaviour("FWD-10")
@given(data=st.data())
def test_gradients_flow_through_dual_tensors_to_their_primals(engine, data):
    """Some leaves are made dual (their primals kept as `<name>_primal`), the program runs on the
    duals, and backward runs inside the level: each primal that requires grad gets the analytic
    gradient, as without forward mode, and the output still has its tangent J v."""
    program = data.draw(programs(engine, ops=WITHOUT_ABS), label="program")
    tangents = data.draw(_tangents(program), label="tangents")
    script = Script(engine)
    _in_dual_level(script, program, tangents, "tangent = fwAD.unpack_dual(out).tangent",
                   "out.backward()", keep_primals=True)
    expected = analytic_grads(program)
    for leaf in program.grad_leaves():
        holder = f"{leaf.name}_primal" if leaf.name in tangents else leaf.name
        script.check_close(f"{holder}.grad", expected[leaf.name], dtype=program.dtype,
                           oracle="analytic", magnitude=expected.magnitude)
    _check_jvp(script, program, tangents)
