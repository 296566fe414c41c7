"""In-place operations: refused on leaves that require grad, recorded on non-leaves, checked
against the version counter at backward time; index assignment (INP-*, MSG-6, MSG-7, BC-1)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads
from autograd_conformance.harness.oracles import Gradients, analytic_grads
from autograd_conformance.harness.script import Script, literal, tensor_literal
from autograd_conformance.harness.strategies import (
    cotangents,
    float_dtypes,
    full_precision_values,
    programs,
    shapes,
    values,
)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
pytestmark = needs("inplace")
control = pytest.mark.control

# The in-place ops INP-1 tries, as drawn (the label) and as a line on the leaf {x}.
LEAF_CHANGES = {
    "add_(1.0)": "{x}.add_(1.0)",
    "mul_(2.0)": "{x}.mul_(2.0)",
    "zero_()": "{x}.zero_()",
    "copy_(torch.zeros_like(x))": "{x}.copy_(torch.zeros_like({x}))",
}
VERSION_MESSAGE = ("one of the variables needed for gradient computation has been modified by an "
                   "inplace operation")


def _sizes(shape) -> str:
    """`shape` as the size arguments of torch.zeros (`2, 3`)."""
    return ", ".join(str(size) for size in shape)


@st.composite
def broadcasting_shapes(draw, target: tuple[int, ...], leading_ones: bool) -> tuple[int, ...]:
    """A shape that broadcasts onto `target`: some of its leading dims dropped and some others set
    to 1, or, if `leading_ones` (index assignment takes them, copy_ does not), `target` itself
    after one or two extra leading 1s."""
    # Extra leading 1s only before the target's own shape: torch takes them before a broadcast
    # shape or a 0-dim slot too, which the reference engine refuses.
    if leading_ones and target and draw(st.booleans(), label="extra leading 1s"):
        return (1,) * draw(st.integers(1, 2), label="how many 1s") + target
    kept = draw(st.integers(0, len(target)), label="dims kept")
    return tuple(1 if draw(st.booleans(), label="size 1") else size
                 for size in target[len(target) - kept:])


def _summed_to(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """`grad` summed over the dims that broadcasting `shape` onto it added or stretched (BC-1)."""
    body = shape[max(len(shape) - grad.ndim, 0):]   # without the extra leading 1s
    grad = grad.sum(axis=tuple(range(grad.ndim - len(body))))
    stretched = tuple(dim for dim, size in enumerate(body) if size == 1 and grad.shape[dim] != 1)
    return grad.sum(axis=stretched, keepdims=True).reshape(shape)


@behaviour("INP-1")
@control("test_inplace.py::test_in_place_on_leaves_is_allowed_without_grad")
@given(data=st.data(), change=st.sampled_from(sorted(LEAF_CHANGES)))
def test_in_place_on_a_leaf_requiring_grad_raises(engine, data, change):
    """Any in-place op on a leaf that requires grad raises RuntimeError (in grad mode) and leaves
    its values alone."""
    program = data.draw(programs(engine, requires_grad="all", max_ops=1), label="program")
    leaf = data.draw(st.sampled_from(program.leaves), label="leaf")
    script = Script(engine)
    script.build(program)
    line = LEAF_CHANGES[change].format(x=leaf.name)
    script.raises(line)
    script.check(f"np.array_equal(to_numpy({leaf.name}), {literal(leaf.values)})",
                 f"{line} raised but changed {leaf.name}", show=(leaf.name,))


@behaviour("MSG-6")
@control("test_inplace.py::test_in_place_on_leaves_is_allowed_without_grad")
@needs("messages")
def test_leaf_in_place_message(engine):
    script = Script(engine)
    script.run("x = torch.tensor([1.0, 2.0], requires_grad=True)")
    script.raises("x.add_(1.0)", "a leaf Variable that requires grad is being used in an in-place "
                                 "operation.")


@behaviour("INP-3")
@control("test_inplace.py::test_index_assignment_into_zeros_gives_the_right_gradients")
@given(shape=shapes(min_dims=1), data=st.data())
def test_index_assignment_into_a_leaf_requiring_grad_raises(engine, shape, data):
    """n[i] = v into a tensor created with requires_grad=True raises RuntimeError."""
    index = data.draw(st.integers(0, shape[0] - 1), label="index")
    script = Script(engine)
    script.run(f"n = torch.zeros({_sizes(shape)}, requires_grad=True)",
               "m = torch.tensor(2.0, requires_grad=True)")
    script.raises(f"n[{index}] = m ** 2")


@behaviour("INP-4")
@given(shape=shapes(min_dims=1), data=st.data(), under_no_grad=st.booleans())
def test_in_place_on_leaves_is_allowed_without_grad(engine, shape, data, under_no_grad):
    """In-place ops are fine on a leaf that does not require grad, and on one that does inside
    no_grad; the leaf stays a leaf and holds the new values."""
    start = data.draw(values(shape, "float32"), label="values")
    script = Script(engine)
    script.run(f"x = torch.tensor({start.tolist()!r}, requires_grad={under_no_grad})")
    if under_no_grad:
        script.run("with torch.no_grad():", "    x.mul_(2.0)", "    x.add_(1.0)")
    else:
        for change in ("x.mul_(2.0)", "x.add_(1.0)"):
            script.run(change)  # one step each: a reproducer ends at the step that failed
    script.check(f"x.is_leaf and x.grad_fn is None and bool(x.requires_grad) == {under_no_grad}",
                 f"after the in-place ops x is not a leaf with requires_grad {under_no_grad}",
                 show=("x.is_leaf", "x.grad_fn", "x.requires_grad"))
    script.check(f"np.allclose(to_numpy(x), {literal(start * 2 + 1)})",
                 "the in-place ops did not apply: x is {x}")


# INP-5's programs, by the slot of the tensor modified in place: the lines that save it, the
# change, the root that backward starts from (its sum), and d root.sum() / d out at out's values
# with the sizes of the terms it adds up (out is not bounded to tanh's unsaturated range, so an
# engine's 1 - tanh(out) ** 2 may cancel: its rounding error is relative to 1 + tanh(out) ** 2).
def _tanh_slope(out):
    return 1 - np.tanh(out) ** 2, 1 + np.tanh(out) ** 2


def _power_of_tanh_slope(out):
    y = np.tanh(out) + 2.0
    outer = y ** y * (np.log(y) + 1.0)
    slope, size = _tanh_slope(out)
    return outer * slope, np.abs(outer) * size


SAVED = {
    "result": (("y = torch.tanh(out)",), "y.add_(1.0)", "y", _tanh_slope),
    "input": (("y = out + 0.0", "z = y * y"), "y.add_(1.0)", "z",
              lambda out: (2 * out, 2 * np.abs(out))),
    "result after a repeated input": (
        ("y = torch.tanh(out) + 2.0", "z = y ** y"), "z.add_(1.0)", "z", _power_of_tanh_slope),
}


@behaviour("INP-5")
@given(data=st.data(), saved=st.sampled_from(tuple(SAVED)))
def test_modifying_a_saved_tensor_makes_backward_raise(engine, data, saved):
    """If a tensor that a node saved for backward is modified in place, backward raises
    RuntimeError: a saved result (y = tanh(out)), a saved input (z = y * y), or the result of
    z = y ** y, saved after y twice: every slot is checked, not one per distinct tensor. Without
    the change the same backward gives the analytic gradients."""
    program = data.draw(programs(engine, output="any", max_ops=3), label="program")
    saves, change, root, slope = SAVED[saved]
    cotangent, size = slope(program.evaluate()[program.output])
    expected = analytic_grads(program, cotangent, cotangent_size=size)
    script = Script(engine)
    with script.control():
        script.build(program)
        script.run(*saves, f"{root}.sum().backward()")
        assert_leaf_grads(script, program, expected, oracle=f"analytic, {root} not modified")
    script.build(program)
    script.run(*saves, change)
    script.raises(f"{root}.sum().backward()")


@behaviour("MSG-7")
@control("test_inplace.py::test_modifying_a_saved_tensor_makes_backward_raise")
@needs("messages")
def test_version_counter_message(engine):
    script = Script(engine)
    script.run("x = torch.tensor([1.0, 2.0], requires_grad=True)", "y = torch.exp(x)",
               "y.add_(1.0)")
    script.raises("y.sum().backward()", VERSION_MESSAGE)


@behaviour("INP-9", "INP-11")
@given(data=st.data())
def test_in_place_ops_on_a_non_leaf_are_differentiated(engine, data):
    """In-place ops on a non-leaf that no node saved are recorded: y = out + 0; y.mul_(a);
    y.add_(b) gives the gradients of a * out + b, and y stays a non-leaf."""
    program = data.draw(programs(engine, output="any"), label="program")
    shape = program.output_shape()
    a = data.draw(values(shape, program.dtype, bound=2.0), label="a")
    b = data.draw(values(shape, program.dtype, bound=2.0), label="b")
    scalar = data.draw(st.sampled_from([1.0, -2.0, 0.5]), label="scalar")
    script = Script(engine, behaviour="INP-11")
    script.build(program)
    script.run(f"a = {tensor_literal(a, program.dtype)}", f"b = {tensor_literal(b, program.dtype)}",
               "y = out + 0.0")
    for change in ("y.mul_(a)", "y.add_(b)", f"y.mul_({scalar})"):
        script.run(change)  # one step each: a reproducer ends at the step that failed
    script.check("not y.is_leaf and y.grad_fn is not None",
                 "y lost its grad_fn after in-place ops")
    expected_y = (program.evaluate()[program.output] * a + b) * scalar
    script.check(f"np.allclose(to_numpy(y), {literal(expected_y)}, rtol=1e-3, atol=1e-3)",
                 "the in-place ops computed wrong values: y is {y}")
    # INP-9: no node saved y, so backward must not raise (caught, to be checked as INP-9's).
    script.run("try:", "    y.sum().backward()", "    raised = None",
               "except RuntimeError as error:", "    raised = error")
    script.check("raised is None", "backward raised after in-place ops on y, which no node "
                                   "saved: {raised}", behaviour="INP-9")
    expected = analytic_grads(program, a * scalar)
    assert_leaf_grads(script, program, expected, oracle="analytic of (a * out + b) * s")


# Each step of INP-10, as drawn, and its line on t.
VERSION_STEPS = {"add_": "t.add_(1.0)", "mul_": "t.mul_(2.0)", "zero_": "t.zero_()",
                 "setitem": "t[0] = 5.0", "out-of-place": "t + 1.0"}


@behaviour("INP-10")
@given(steps=st.lists(st.sampled_from(["add_", "mul_", "zero_", "setitem", "out-of-place"]),
                      min_size=1, max_size=6))
def test_version_counts_in_place_ops(engine, steps):
    """_version is incremented by every in-place op (index assignment included); ops that return
    new tensors leave it unchanged. The docs promise an increment, not its size."""
    script = Script(engine)
    script.run("t = torch.zeros(3)")
    for step in steps:
        script.run("before = t._version", VERSION_STEPS[step])
        if step == "out-of-place":
            script.check("t._version == before", f"{step} changed _version",
                         show=("before", "t._version"))
        else:
            script.check("t._version > before", f"{step} did not raise _version",
                         show=("before", "t._version"))


@behaviour("INP-12")
@given(data=st.data())
def test_overwritten_elements_get_zero_gradient(engine, data):
    """y[i] = constant on a non-leaf is recorded: element i no longer depends on the inputs, so
    the gradients are those of the program with row i of the cotangent zeroed."""
    program = data.draw(programs(engine, output="vector"), label="program")
    shape = program.output_shape()
    row = data.draw(st.integers(0, shape[0] - 1), label="row")
    script = Script(engine)
    script.build(program)
    script.run("y = out + 0.0", f"y[{row}] = 7.0")
    script.check("not y.is_leaf and y.requires_grad",
                 f"after y[{row}] = 7.0, y is not a non-leaf that requires grad",
                 show=("y.is_leaf", "y.requires_grad"))
    script.run("y.sum().backward()")
    weights = np.ones(shape)
    weights[row] = 0.0
    expected = analytic_grads(program, weights)
    assert_leaf_grads(script, program, expected, oracle=f"analytic with row {row} cut")


@behaviour("INP-14")
@given(data=st.data())
def test_index_assignment_into_zeros_gives_the_right_gradients(engine, data):
    """The seeds' pattern on random programs: n = zeros(k); n[p] = out * c_p for some positions;
    n.backward(v) gives sum_p v_p c_p times the program's gradients."""
    program = data.draw(programs(engine), label="program")
    size = data.draw(st.integers(1, 4), label="k")
    factors = data.draw(st.dictionaries(st.integers(0, size - 1),
                                        st.sampled_from([1.0, 2.0, -1.0, 0.5]), min_size=1),
                        label="positions and factors")
    v = data.draw(cotangents((size,), program.dtype), label="gradient")
    script = Script(engine)
    script.build(program)
    script.run(f"n = torch.zeros({size}, dtype=torch.{program.dtype})")
    for position, factor in factors.items():
        script.run(f"n[{position}] = out.reshape(()) * {factor}")
    script.check("not n.is_leaf and n.requires_grad",
                 "n did not join the graph after index assignment")
    script.run(f"n.backward({tensor_literal(v, program.dtype)})")
    weight = sum(v[p] * c for p, c in factors.items())
    expected = analytic_grads(program)
    assert_leaf_grads(script, program, expected, oracle=f"analytic x {weight:.4g}",
                      scale=weight)


@behaviour("INP-14")
@given(data=st.data(), value_shape=st.sampled_from([(1,), (1, 1), (1, 1, 1)]))
def test_a_value_with_leading_ones_fills_a_one_element_slot(engine, data, value_shape):
    """n[p] = value, n 1-D and value of shape (1,), (1, 1) or (1, 1, 1): torch drops the value's
    leading size-1 dims and writes its one element into the slot; n.backward(v) gives the value
    the gradient v_p in the value's own shape, and the program's leaves v_p c times theirs."""
    program = data.draw(programs(engine), label="program")
    size = data.draw(st.integers(1, 4), label="k")
    position = data.draw(st.integers(0, size - 1), label="position")
    factor = data.draw(st.sampled_from([1.0, 2.0, -1.0, 0.5]), label="factor")
    v = data.draw(cotangents((size,), program.dtype), label="gradient")
    script = Script(engine)
    script.build(program)
    script.run(f"n = torch.zeros({size}, dtype=torch.{program.dtype})",
               f"value = out.reshape({value_shape}) * {factor}", "value.retain_grad()",
               f"n[{position}] = value")
    script.check_equal("tuple(n.shape)", (size,), why="the value fills one element of n")
    script.run(f"n.backward({tensor_literal(v, program.dtype)})")
    script.check_equal("tuple(value.grad.shape)", value_shape,
                       why="the value's gradient has the value's shape")
    script.check_close("value.grad", np.full(value_shape, v[position]), dtype=program.dtype,
                       oracle=f"the gradient v[{position}] at the slot")
    expected = analytic_grads(program)
    assert_leaf_grads(script, program, expected, oracle=f"analytic x {v[position] * factor:.4g}",
                      scale=v[position] * factor)


@behaviour("INP-14", "HO-1")
@needs("autograd_grad", "higher_order")
@given(data=st.data())
def test_index_assignment_gradients_are_differentiable(engine, data):
    """y = x * 1; y[i] = s: grad(y, (x, s), w, create_graph=True) is w with row i zeroed for x
    and w[i] for s, both differentiable: with respect to w, sum(gx * c) + sum(gs * d) has
    the gradient c with row i zeroed, plus d in row i."""
    shape = data.draw(shapes(min_dims=1), label="shape")
    dtype = data.draw(float_dtypes(engine), label="dtype")
    row = data.draw(st.integers(0, shape[0] - 1), label="i")
    x, w, c = (data.draw(values(shape, dtype), label=name) for name in ("x", "w", "c"))
    s, d = (data.draw(values(shape[1:], dtype), label=name) for name in ("s", "d"))
    script = Script(engine)
    script.run(f"x = {tensor_literal(x, dtype, True)}", f"s = {tensor_literal(s, dtype, True)}",
               f"w = {tensor_literal(w, dtype, True)}", "y = x * 1.0", f"y[{row}] = s",
               "gx, gs = torch.autograd.grad(y, (x, s), w, create_graph=True)")
    kept = np.ones(shape)
    kept[row] = 0.0
    script.check_close("gx", w * kept, dtype=dtype, oracle="w, row i zeroed")
    script.check_close("gs", w[row], dtype=dtype, oracle="w[i]")
    script.run(f"gw, = torch.autograd.grad((gx * {tensor_literal(c, dtype)}).sum() "
               f"+ (gs * {tensor_literal(d, dtype)}).sum(), w)")
    expected = c * kept
    expected[row] = d
    script.check_close("gw", expected, dtype=dtype, oracle="c with row i zeroed, d in row i")


@behaviour("INP-16")
@given(data=st.data())
def test_in_place_with_an_operand_requiring_grad_joins_the_graph(engine, data):
    """a.add_(x) where a is a plain leaf and x requires grad makes a a non-leaf that requires
    grad, and backward through a reaches x."""
    program = data.draw(programs(engine, output="any", requires_grad="all"), label="program")
    shape = program.output_shape()
    script = Script(engine)
    script.build(program)
    script.run(f"a = torch.zeros({_sizes(shape)}, dtype=torch.{program.dtype})" if shape else
               f"a = {tensor_literal(np.zeros(()), program.dtype)}",
               "a.add_(out)")
    script.check("not a.is_leaf and a.requires_grad and a.grad_fn is not None",
                 "a.add_(out) with out requiring grad left a as a plain leaf")
    script.run("a.sum().backward()")
    expected = analytic_grads(program, np.ones(shape))
    assert_leaf_grads(script, program, expected, oracle="analytic")


@behaviour("INP-10")
@given(data=st.data())
def test_accumulating_into_grad_bumps_its_version(engine, data):
    """A second backward adds into the existing .grad in place: the tensor that was .grad before
    it has a higher _version after it, like the tensor of any other in-place op."""
    program = data.draw(programs(engine), label="program")
    script = Script(engine)
    script.build(program)
    script.run("out.backward(retain_graph=True)")
    names = [leaf.name for leaf in program.grad_leaves()]
    for name in names:
        script.run(f"{name}_grad = {name}.grad", f"{name}_version = {name}_grad._version")
    script.run("out.backward()")
    for name in names:
        script.check(f"{name}_grad._version > {name}_version",
                     f"the second backward did not raise the _version of {name}'s .grad",
                     show=(f"{name}_version", f"{name}_grad._version"))


@behaviour("INP-19")
@given(data=st.data(), overwrite=st.sampled_from(["zero_()", "copy_(src)"]))
def test_overwriting_a_non_leaf_passes_zero_gradient_to_its_history(engine, data, overwrite):
    """y.zero_() and y.copy_(src) on a non-leaf are recorded: what y was computed from gets zero
    gradients (zeros, not None), and src, which may broadcast onto y, gets y's gradient summed
    to its shape."""
    program = data.draw(programs(engine, output="any"), label="program")
    shape, dtype = program.output_shape(), program.dtype
    # Full mantissas: src.grad keeps every bit of them (a round trip through float32 shows).
    gradient = data.draw(full_precision_values(shape, dtype, bound=2.0), label="gradient")
    script = Script(engine)
    script.build(program)
    script.run("y = out + 0.0")
    if overwrite == "copy_(src)":
        src_shape = data.draw(broadcasting_shapes(shape, leading_ones=False), label="src shape")
        src_requires_grad = data.draw(st.booleans(), label="src.requires_grad")
        src = data.draw(values(src_shape, dtype), label="src")
        script.run(f"src = {tensor_literal(src, dtype, requires_grad=src_requires_grad)}")
    script.run(f"y.{overwrite}", f"y.backward({tensor_literal(gradient, dtype)})")
    zeros = Gradients({leaf.name: np.zeros_like(leaf.values) for leaf in program.grad_leaves()},
                      magnitude=0.0)
    assert_leaf_grads(script, program, zeros, oracle=f"zero: y.{overwrite} overwrote every value")
    if overwrite == "copy_(src)" and src_requires_grad:
        script.check_close("src.grad", _summed_to(gradient, src_shape), dtype=dtype,
                           oracle="y's gradient summed to src's shape",
                           magnitude=_summed_to(np.abs(gradient), src_shape).max())


@behaviour("INP-12", "BC-1")
@given(data=st.data())
def test_an_assigned_value_gets_the_slot_gradient_summed_to_its_shape(engine, data):
    """y[i] = v with v broadcast into the slot y[i]: row i of y passes no gradient to what y was
    computed from (INP-12), and the gradient that reaches v (seen by a hook on v, then in
    v.grad) is the slot's gradient summed to v's shape and cast to v's dtype, which may be the
    other float dtype (BC-1)."""
    program = data.draw(programs(engine, output="vector"), label="program")
    shape, dtype = program.output_shape(), program.dtype
    row = data.draw(st.integers(0, shape[0] - 1), label="row")
    v_shape = data.draw(broadcasting_shapes(shape[1:], leading_ones=True), label="v shape")
    v_dtype = data.draw(st.sampled_from(["float32", "float64"]) if engine.has("float64")
                        else st.just(dtype), label="v dtype")
    v = data.draw(values(v_shape, "float32"), label="v")  # exact in either dtype
    gradient = data.draw(cotangents(shape, dtype), label="gradient")
    script = Script(engine, behaviour="INP-12")
    script.build(program)
    script.run(f"v = {tensor_literal(v, v_dtype, requires_grad=True)}", "y = out + 0.0")
    hooked = engine.has("hooks")
    if hooked:
        script.run("seen = []", "v.register_hook(seen.append)")
    script.run(f"y[{row}] = v", f"y.backward({tensor_literal(gradient, dtype)})")
    kept = gradient.copy()
    kept[row] = 0.0
    assert_leaf_grads(script, program, analytic_grads(program, kept),
                      oracle=f"analytic with row {row} cut")
    slot_grad = _summed_to(gradient[row], v_shape)
    magnitude = _summed_to(np.abs(gradient[row]), v_shape).max()
    precision = "float64" if dtype == v_dtype == "float64" else "float32"
    if hooked:
        script.check(f"len(seen) == 1 and tuple(seen[0].shape) == {v_shape!r} and "
                     f"seen[0].dtype == torch.{v_dtype}",
                     f"v is {v_dtype} of shape {v_shape}, but its hook saw other gradients",
                     show=("[(tuple(g.shape), g.dtype) for g in seen]",), behaviour="BC-1")
        script.check_close("seen[0]", slot_grad, dtype=precision, behaviour="BC-1",
                           oracle=f"row {row} of the gradient summed to v's shape",
                           magnitude=magnitude)
    script.check(f"v.grad is not None and v.grad.dtype == torch.{v_dtype}",
                 f"v is {v_dtype} but its grad is None or of another dtype",
                 show=("None if v.grad is None else v.grad.dtype",), behaviour="BC-1")
    script.check_close("v.grad", slot_grad, dtype=precision,
                       oracle=f"row {row} of the gradient summed to v's shape", behaviour="BC-1",
                       magnitude=magnitude)


@behaviour("INP-6")
@needs("autograd_grad", "higher_order")
@given(shape=shapes(), data=st.data(), op=st.sampled_from(["exp", "relu"]))
def test_a_saved_result_is_checked_in_the_graph_of_its_gradient(engine, shape, data, op):
    """y = op(x) saves y, and the gradient v * op'(x) taken with create_graph=True uses the saved
    y again. After y is modified in place, differentiating that gradient w.r.t. v raises
    RuntimeError, although that backward never reaches op's own node; unmodified, it gives
    op'(x)."""
    x = data.draw(values(shape, "float32"), label="x")
    v = data.draw(cotangents(shape, "float32"), label="v")
    script = Script(engine)
    gradient = ["g, = torch.autograd.grad(y, x, grad_outputs=v, create_graph=True)"]
    script.run(f"x = {tensor_literal(x, 'float32', requires_grad=True)}",
               f"v = {tensor_literal(v, 'float32', requires_grad=True)}")
    with script.control():
        script.run(f"y = torch.{op}(x)", *gradient, "gv, = torch.autograd.grad(g.sum(), v)")
        script.check_close("gv", np.exp(x) if op == "exp" else (x > 0).astype(float),
                           dtype="float32", oracle=f"{op}'(x)")
    script.run(f"y = torch.{op}(x)", *gradient, "y.add_(1.0)")
    script.raises("torch.autograd.grad(g.sum(), v)")


VALUE_CHANGES = ("add_(1.0)", "mul_(2.0)", "zero_()")   # in-place ops on y that any y allows


@behaviour("INP-7")
@control("test_inplace.py::test_modifying_a_saved_tensor_makes_backward_raise")
@needs("messages")
@given(data=st.data(), before=st.integers(0, 2), after=st.integers(1, 3))
def test_version_counter_message_gives_both_versions(engine, data, before, after):
    """y changed in place `before` times, then saved by z = y * y, then changed `after` more
    times: backward says 'is at version {before + after}; expected version {before} instead'."""
    program = data.draw(programs(engine, output="any", max_ops=3), label="program")
    changes = data.draw(st.lists(st.sampled_from(VALUE_CHANGES), min_size=before + after,
                                 max_size=before + after), label="in-place ops")
    script = Script(engine)
    script.build(program)
    script.run("y = out + 0.0", *(f"y.{change}" for change in changes[:before]),
               "z = y * y  # saves y", *(f"y.{change}" for change in changes[before:]))
    script.raises("z.sum().backward()", f"is at version {before + after}; expected version "
                                        f"{before} instead")


# INP-8's expressions of the leaves x and w whose node saves x (a product saves each operand
# for the other's gradient: x * w saves x because w requires grad).
SAVING_X = ("x * w", "w * x", "x * x", "x ** 2")


@behaviour("INP-8")
@given(shape=shapes(), data=st.data(), saving=st.sampled_from(SAVING_X),
       change=st.sampled_from(VALUE_CHANGES))
def test_in_place_under_no_grad_on_a_saved_leaf_makes_backward_raise(engine, shape, data,
                                                                     saving, change):
    """A leaf x that requires grad, saved by the node of z = sum(x * w) (or x * x, x ** 2, w
    requiring grad too), may be changed in place under no_grad, but that still moves its
    version: backward raises. Unchanged, x gets its analytic gradient."""
    x = data.draw(values(shape, "float32"), label="x")
    w = data.draw(values(shape, "float32"), label="w")
    script = Script(engine)
    script.run(f"x = {tensor_literal(x, 'float32', requires_grad=True)}",
               f"w = {tensor_literal(w, 'float32', requires_grad=True)}")
    with script.control():
        script.run(f"({saving}).sum().backward()")
        script.check_close("x.grad", w if "w" in saving else 2 * x, dtype="float32",
                           oracle=f"d sum({saving}) / dx")
    script.run(f"z = ({saving}).sum()", "version = x._version", "with torch.no_grad():",
               f"    x.{change}")
    script.check("x._version > version", f"x.{change} under no_grad left x._version at "
                                         "{x._version}")
    script.raises("z.backward()")


# INP-15's values that do not require grad, assigned into a slot of out's shape.
CONSTANT_VALUES = {"a Python number": "2.5", "a detached result": "out.detach() * 2.0",
                   "a plain tensor": "c"}


@behaviour("INP-15")
@given(data=st.data(), value=st.sampled_from(sorted(CONSTANT_VALUES)), rows=st.integers(1, 3))
def test_assigning_a_constant_into_a_plain_tensor_is_not_recorded(engine, data, value, rows):
    """n = zeros(rows, *out.shape); n[i] = v, with v a number, a detached result or a plain
    tensor: nothing that requires grad reaches n, so it stays a leaf without grad_fn that does
    not require grad, and holds v in row i."""
    program = data.draw(programs(engine, output="any"), label="program")
    shape, dtype = program.output_shape(), program.dtype
    row = data.draw(st.integers(0, rows - 1), label="row")
    c = data.draw(values(shape, dtype), label="c")
    written = {"a Python number": np.full(shape, 2.5),
               "a detached result": program.evaluate()[program.output] * 2.0,
               "a plain tensor": c}[value]
    expected = np.zeros((rows,) + shape)
    expected[row] = written
    script = Script(engine)
    script.build(program)
    script.run(f"c = {tensor_literal(c, dtype)}",
               f"n = torch.zeros({_sizes((rows,) + shape)}, dtype=torch.{dtype})",
               f"n[{row}] = {CONSTANT_VALUES[value]}")
    script.check("n.is_leaf and n.grad_fn is None and not n.requires_grad",
                 f"n[{row}] = {value} made n a recorded tensor",
                 show=("n.is_leaf", "n.grad_fn", "n.requires_grad"))
    script.check_close("n", expected, dtype=dtype, oracle=f"zeros with row {row} written")


@behaviour("INP-20")
@needs("saved_tensor_mutation")
@given(data=st.data(), as_list=st.booleans())
def test_increment_version_counts_as_an_in_place_change(engine, data, as_list):
    """t, a leaf or result of a random program, is saved by z = t * w (w requires grad): a
    backward through z runs, and after torch.autograd.graph.increment_version(t) (or of [t])
    the same backward raises RuntimeError."""
    program = data.draw(programs(engine, output="any"), label="program")
    name = data.draw(st.sampled_from([leaf.name for leaf in program.leaves]
                                     + [node.name for node in program.nodes]), label="t")
    w = data.draw(values(program.evaluate()[name].shape, program.dtype), label="w")
    script = Script(engine)
    with script.control():
        script.build(program)
        script.run(f"w = {tensor_literal(w, program.dtype, requires_grad=True)}",
                   f"z = {name} * w", "z.sum().backward(retain_graph=True)")
        script.check_close("w.grad", program.evaluate()[name], dtype=program.dtype,
                           oracle=f"{name}, the gradient of sum({name} * w)")
    script.run(f"torch.autograd.graph.increment_version({f'[{name}]' if as_list else name})")
    script.raises("z.sum().backward()")
