"""Non-scalar outputs: backward needs a gradient of the output's shape (cast to its dtype),
computes v^T J, and unit vectors give the Jacobian's rows (JAC-*, BC-3)."""

import dataclasses
import textwrap

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads
from autograd_conformance.harness.counts import FUNCTION_OUTPUTS, counts
from autograd_conformance.harness.oracles import Gradients, analytic_grads
from autograd_conformance.harness.script import Script, literal, tensor_literal
from autograd_conformance.harness.strategies import (
    computed_output,
    cotangents,
    programs,
    recorded_intermediates,
    unit_vectors,
)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control
ONE_ELEMENT_SHAPES = [(), (1,), (1, 1), (1, 1, 1)]


# The factors of the roots of JAC-14's test: distinct, exact in float32.
ROOT_FACTORS = (1.0, -2.0, 0.5, 3.0)


def _tensor(program, array) -> str:
    return f"torch.tensor({literal(array)}, dtype=torch.{program.dtype})"


@behaviour("JAC-1")
@control("test_jacobian.py::test_backward_with_gradient_is_the_vjp")
@given(data=st.data())
def test_backward_without_gradient_on_non_scalar_raises(engine, data):
    program = data.draw(programs(engine, output="vector"), label="program")
    script = Script(engine)
    script.build(program)
    script.raises("out.backward()")


def _check_one_element_output_needs_no_gradient(engine, data, call):
    program = data.draw(programs(engine), label="program")
    shape = data.draw(st.sampled_from(ONE_ELEMENT_SHAPES), label="one-element shape")
    script = Script(engine)
    script.build(program)
    script.run(call.format(f"out.reshape({shape})"))
    assert_leaf_grads(script, program, analytic_grads(program), oracle="analytic")


@behaviour("JAC-3")
@given(data=st.data())
def test_backward_without_gradient_on_any_one_element_shape(engine, data):
    """A one-element output needs no gradient, whatever its shape."""
    _check_one_element_output_needs_no_gradient(engine, data, "{}.backward()")


@behaviour("JAC-3")
@needs("autograd_backward")
@given(data=st.data())
def test_autograd_backward_takes_none_for_a_one_element_output(engine, data):
    """In torch.autograd.backward's list of gradients, None stands for a one-element root's."""
    _check_one_element_output_needs_no_gradient(engine, data,
                                                "torch.autograd.backward([{}], [None])")


def _check_backward_with_a_gradient(engine, data, output):
    """backward(v) on a program's output (`output`: "vector" or "scalar") gives v^T J."""
    program = data.draw(programs(engine, output=output), label="program")
    v = data.draw(cotangents(program.output_shape(), program.dtype), label="gradient")
    script = Script(engine)
    script.build(program)
    script.run(f"out.backward({_tensor(program, v)})")
    assert_leaf_grads(script, program, analytic_grads(program, v),
                      oracle="analytic v^T J")


@behaviour("JAC-5")
@given(data=st.data())
def test_backward_with_gradient_is_the_vjp(engine, data):
    _check_backward_with_a_gradient(engine, data, "vector")


@behaviour("JAC-5")
@given(data=st.data())
def test_vjp_is_linear_in_the_gradient(engine, data):
    program = data.draw(programs(engine, output="vector"), label="program")
    shape = program.output_shape()
    u = data.draw(cotangents(shape, program.dtype), label="u")
    v = data.draw(cotangents(shape, program.dtype), label="v")
    a, b = data.draw(st.sampled_from([(1.0, 1.0), (2.0, -1.0), (0.5, 3.0)]), label="a, b")
    leaves = program.grad_leaves()
    magnitude = (abs(a) * analytic_grads(program, u).magnitude
                 + abs(b) * analytic_grads(program, v).magnitude)
    script = Script(engine)
    for name, cotangent in (("u", u), ("v", v)):
        script.run(f"# A fresh run of the program with the gradient {name}; its grads are kept")
        script.build(program)
        script.run(f"out.backward({_tensor(program, cotangent)})",
                   f"grads_{name} = [{', '.join(f'{leaf.name}.grad' for leaf in leaves)}]")
    script.run(f"# A fresh run with the gradient {a} u + {b} v")
    script.build(program)
    script.run(f"out.backward({_tensor(program, a * u + b * v)})")
    for index, leaf in enumerate(leaves):
        script.check(f"grads_u[{index}] is not None and grads_v[{index}] is not None",
                     f"{leaf.name}.grad is None after backward(u) or backward(v)")
        script.check_agrees(
            f"{leaf.name}.grad",
            f"{a!r} * to_numpy(grads_u[{index}]) + {b!r} * to_numpy(grads_v[{index}])",
            dtype=program.dtype, oracle=f"linearity ({a} u + {b} v)", magnitude=magnitude)


def _vjp_of_a_sum(program, u, v) -> Gradients:
    """(u + v)^T J, with the rounding scale of u and v pulled back separately: an engine may do
    so, and their rounding errors add up."""
    return Gradients(analytic_grads(program, u + v), analytic_grads(program, u).magnitude
                     + analytic_grads(program, v).magnitude)


@behaviour("JAC-5")
@needs("autograd_backward")
@given(data=st.data())
def test_an_output_listed_twice_gets_both_gradients(engine, data):
    """torch.autograd.backward([out, out], [u, v]) accumulates (u + v)^T J: the gradients of a
    root listed twice are summed."""
    program = data.draw(programs(engine, output="vector"), label="program")
    u = data.draw(cotangents(program.output_shape(), program.dtype), label="u")
    v = data.draw(cotangents(program.output_shape(), program.dtype), label="v")
    script = Script(engine)
    script.build(program)
    script.run(f"torch.autograd.backward([out, out], [{_tensor(program, u)}, "
               f"{_tensor(program, v)}])")
    assert_leaf_grads(script, program, _vjp_of_a_sum(program, u, v),
                      oracle="analytic (u + v)^T J")


@behaviour("JAC-5")
@needs("autograd_backward")
@given(data=st.data())
def test_a_root_that_another_root_reaches_gets_both_gradients(engine, data):
    """torch.autograd.backward([out, h], [u, w]) for an intermediate h that out depends on: the
    leaves get u^T J_out + w^T J_h, and each node's backward runs once, after both gradients
    reached it (roots listed in either order)."""
    program = data.draw(programs(engine, candidates=recorded_intermediates), label="program")
    name = data.draw(st.sampled_from(recorded_intermediates(program)), label="intermediate")
    u = data.draw(cotangents(program.output_shape(), program.dtype), label="u")
    w = data.draw(cotangents(program.evaluate()[name].shape, program.dtype), label="w")
    roots = [("out", u), (name, w)]
    if data.draw(st.booleans(), label="intermediate listed first"):
        roots.reverse()
    script = Script(engine)
    script.build(program)
    script.run(f"torch.autograd.backward([{', '.join(root for root, _ in roots)}], "
               f"[{', '.join(_tensor(program, v) for _, v in roots)}])")
    through_out = analytic_grads(program, u)
    through_h = analytic_grads(dataclasses.replace(program, output=name), w)
    expected = Gradients({leaf: through_out[leaf] + through_h.get(leaf, 0.0)
                          for leaf in through_out}, through_out.magnitude + through_h.magnitude)
    assert_leaf_grads(script, program, expected, oracle="analytic u^T J_out + w^T J_h")


@behaviour("BC-3")
@needs("float64")
@pytest.mark.parametrize("create_graph", [
    False, pytest.param(True, marks=needs("backward_create_graph"))])
@pytest.mark.filterwarnings("ignore:Using backward.. with create_graph=True:UserWarning")
@given(data=st.data())
def test_a_gradient_of_another_dtype_is_cast_to_the_outputs(engine, create_graph, data):
    """backward(v) with v of the other float dtype casts v to the output's dtype, with or without
    create_graph: out's retained .grad is v in out's dtype, and every leaf's .grad has its leaf's
    dtype and the value v^T J."""
    program = data.draw(programs(engine, output="vector", candidates=computed_output),
                        label="program")
    other = "float32" if program.dtype == "float64" else "float64"
    v = data.draw(cotangents(program.output_shape(), "float32"), label="gradient")  # exact in both
    script = Script(engine)
    script.build(program)
    script.run("out.retain_grad()",
               f"out.backward(torch.tensor({literal(v)}, dtype=torch.{other})"
               f"{', create_graph=True' if create_graph else ''})")
    script.check(f"out.grad is not None and out.grad.dtype == torch.{program.dtype}",
                 f"out is {program.dtype} but its retained .grad, from a {other} gradient, is "
                 "{None if out.grad is None else out.grad.dtype}")
    script.check_close("out.grad", v, dtype=program.dtype, oracle="the gradient given")
    assert_leaf_grads(script, program, analytic_grads(program, v), oracle="analytic v^T J")
    for leaf in program.grad_leaves():
        script.check(f"{leaf.name}.grad.dtype == torch.{program.dtype}",
                     f"{leaf.name}.grad does not have the program's dtype {program.dtype}",
                     show=(f"{leaf.name}.grad.dtype",))


def _jacobian_rows(script, program, leaf_name) -> None:
    """The script's `rows`: row i of d out / d leaf from backward(e_i, retain_graph=True), with
    .grad cleared before each pass (a None .grad is a row of zeros)."""
    shape, size = program.output_shape(), int(np.prod(program.output_shape(), dtype=int))
    leaf_shape = program.leaf(leaf_name).values.shape
    script.run("rows = []",
               f"for unit in np.eye({size}):",
               f"    {leaf_name}.grad = None",
               f"    out.backward(torch.tensor(unit.reshape({shape}).tolist(), "
               f"dtype=torch.{program.dtype}), retain_graph=True)",
               f"    grad = np.zeros({leaf_shape}) if {leaf_name}.grad is None "
               f"else to_numpy({leaf_name}.grad)",
               "    rows.append(grad.flatten())  # a copy, as later passes may reuse memory",
               "rows = np.stack(rows)")


def _analytic_jacobian(program, leaf_name) -> tuple[np.ndarray, float]:
    """d out / d leaf, one row per output element, and the largest magnitude of its rows'
    rounding errors (autograd_conformance/harness/oracles.py)."""
    rows = [analytic_grads(program, unit, wrt=[leaf_name])
            for unit in unit_vectors(program.output_shape())]
    return (np.stack([row[leaf_name].reshape(-1) for row in rows]),
            max(row.magnitude for row in rows))


def _program_and_leaf(data, engine):
    """A program with a vector output and one of its leaves that get .grad."""
    program = data.draw(programs(engine, output="vector", max_ops=4), label="program")
    return program, data.draw(st.sampled_from(program.grad_leaves()), label="leaf")


@behaviour("JAC-6")
@given(data=st.data())
def test_unit_gradients_give_jacobian_rows(engine, data):
    program, leaf = _program_and_leaf(data, engine)
    expected, magnitude = _analytic_jacobian(program, leaf.name)
    script = Script(engine)
    script.build(program)
    _jacobian_rows(script, program, leaf.name)
    script.run(f"expected = np.array({literal(expected)})  # the analytic Jacobian")
    script.check_agrees("rows", "expected", dtype=program.dtype,
                        oracle="analytic Jacobian", magnitude=magnitude)


@behaviour("JAC-6")
def test_seed_matmul_jacobian_rows(engine):
    """Seed 000: x = [[1, 2]], y = [[3, 4], [5, 6]], loss = x @ y: backward([[1, 0]]) gives
    x.grad [[3, 5]]; after zeroing, backward([[0, 1]]) gives [[4, 6]]."""
    script = Script(engine)
    script.run("x = torch.tensor([[1.0, 2.0]], requires_grad=True)",
               "y = torch.tensor([[3.0, 4.0], [5.0, 6.0]])",
               "loss = x @ y",
               "loss.backward(torch.tensor([[1.0, 0.0]]), retain_graph=True)")
    script.check("x.grad is not None and [x.grad[0, 0].item(), x.grad[0, 1].item()] == [3.0, 5.0]",
                 "x.grad after backward([[1, 0]]) is {x.grad}, expected [[3.0, 5.0]]")
    script.run("x.grad.zero_()",
               "loss.backward(torch.tensor([[0.0, 1.0]]))")
    script.check("x.grad is not None and [x.grad[0, 0].item(), x.grad[0, 1].item()] == [4.0, 6.0]",
                 "x.grad after backward([[0, 1]]) is {x.grad}, expected [[4.0, 6.0]]")


@behaviour("JAC-6", "INP-14")
@needs("inplace")
def test_seed_index_assignment_jacobian(engine):
    """Seed 003: n = zeros(1, 2); n[0, 0] = m[0, 0] ** 2; n[0, 1] = m[0, 1] ** 3 with m = [[2, 3]]
    gives m.grad [[4, 27]] for gradient [[1, 1]]; k[0, 0] = m00 ** 2 + 3 m01,
    k[0, 1] = m01 ** 2 + 2 m00 has the Jacobian [[4, 2], [3, 6]] (columns from unit rows)."""
    script = Script(engine)
    script.run("m = torch.tensor([[2.0, 3.0]], requires_grad=True)",
               "n = torch.zeros(1, 2)",
               "n[0, 0] = m[0, 0] ** 2",
               "n[0, 1] = m[0, 1] ** 3",
               "n.backward(torch.tensor([[1.0, 1.0]]))")
    script.check("m.grad is not None and [m.grad[0, 0].item(), m.grad[0, 1].item()] == [4.0, 27.0]",
                 "m.grad through the index assignments is {m.grad}, expected [[4.0, 27.0]]",
                 behaviour="INP-14")
    script.run("m.grad = None",
               "k = torch.zeros(1, 2)",
               "k[0, 0] = m[0, 0] ** 2 + 3 * m[0, 1]",
               "k[0, 1] = m[0, 1] ** 2 + 2 * m[0, 0]",
               "columns = []")
    for unit in ([[1.0, 0.0]], [[0.0, 1.0]]):
        script.run(f"k.backward(torch.tensor({unit}), retain_graph=True)")
        script.check("m.grad is not None", f"m.grad is None after k.backward({unit})",
                     behaviour="JAC-6")
        script.run("columns.append([m.grad[0, 0].item(), m.grad[0, 1].item()])",
                   "m.grad.zero_()")
    script.check("[[columns[0][0], columns[1][0]], [columns[0][1], columns[1][1]]] == "
                 "[[4.0, 2.0], [3.0, 6.0]]",
                 "the Jacobian from unit rows is {columns} transposed, expected "
                 "[[4.0, 2.0], [3.0, 6.0]]", behaviour="JAC-6")


@behaviour("JAC-8")
@needs("functional")
@given(data=st.data())
def test_functional_jacobian_matches_unit_rows(engine, data):
    program, leaf = _program_and_leaf(data, engine)
    script = Script(engine)
    script.build(program)
    _jacobian_rows(script, program, leaf.name)
    # The program as a function of the leaf (its other leaves made afresh on each call).
    body = program.script_lines(given=[leaf.name]) + ["return out"]
    script.run(f"def function({leaf.name}):\n" + textwrap.indent("\n".join(body), "    "),
               f"jacobian = torch.autograd.functional.jacobian(function, {leaf.name}.detach())")
    layout = program.output_shape() + leaf.values.shape  # output dims first, then input dims
    script.check_equal("tuple(int(size) for size in jacobian.shape)", layout,
                       why="torch's layout: the output dims, then the input dims")
    _, magnitude = _analytic_jacobian(program, leaf.name)
    script.check_agrees("to_numpy(jacobian).reshape(rows.shape)", "rows",
                        dtype=program.dtype, oracle="unit-vector rows", magnitude=magnitude)


def _wrong_shapes(shape):
    """Shapes other than `shape` (extra dim, dropped dim, reversed, one more element)."""
    options = {shape + (1,), (1,) + shape, tuple(reversed(shape)), (int(sum(shape)) + 1,)}
    if shape:
        options.add(shape[1:])
    return sorted(option for option in options if option != shape)


@behaviour("JAC-11")
@control("test_jacobian.py::test_backward_with_gradient_is_the_vjp")
@given(data=st.data())
def test_gradient_of_the_wrong_shape_raises(engine, data):
    """backward(gradient) with a gradient whose shape differs from the output's raises
    RuntimeError, even when it would broadcast, and accumulates nothing."""
    program = data.draw(programs(engine, output="any"), label="program")
    wrong = data.draw(st.sampled_from(_wrong_shapes(program.output_shape())), label="shape")
    gradient = data.draw(cotangents(wrong, program.dtype), label="gradient")
    script = Script(engine)
    script.build(program)
    script.raises(f"out.backward({_tensor(program, gradient)})")
    for leaf in program.grad_leaves():
        script.check(f"{leaf.name}.grad is None",
                     f"{leaf.name}.grad was filled by a backward that raised")


@behaviour("JAC-7")
@given(data=st.data())
def test_jacobian_rows_accumulate_without_zeroing(engine, data):
    """Without zeroing between them, backward(e_i, retain_graph=True) then backward(e_j) leave
    row i + row j of the Jacobian in .grad: that is why the rows need zeroing between passes."""
    program = data.draw(programs(engine, output="vector"), label="program")
    units = unit_vectors(program.output_shape())
    first, second = (data.draw(st.sampled_from(range(len(units))), label=label)
                     for label in ("first row", "second row"))
    script = Script(engine)
    script.build(program)
    script.run(f"out.backward({_tensor(program, units[first])}, retain_graph=True)",
               f"out.backward({_tensor(program, units[second])})")
    assert_leaf_grads(script, program, _vjp_of_a_sum(program, units[first], units[second]),
                      oracle=f"row {first} + row {second}")


@behaviour("JAC-7")
def test_seed_rows_without_zeroing_add_up(engine):
    """Seed 000 without its x.grad.data.zero_(): loss = x @ y with x = [[1, 2]],
    y = [[3, 4], [5, 6]]; backward([[1, 0]]) gives [[3, 5]], then backward([[0, 1]]) adds
    [[4, 6]]: x.grad is [[7, 11]]."""
    script = Script(engine)
    script.run("x = torch.tensor([[1.0, 2.0]], requires_grad=True)",
               "y = torch.tensor([[3.0, 4.0], [5.0, 6.0]])", "loss = x @ y",
               "loss.backward(torch.tensor([[1.0, 0.0]]), retain_graph=True)",
               "loss.backward(torch.tensor([[0.0, 1.0]]))")
    script.check("x.grad is not None and [x.grad[0, 0].item(), x.grad[0, 1].item()] == [7.0, 11.0]",
                 "x.grad after both rows without zeroing is {x.grad}, expected [[7.0, 11.0]]")


@behaviour("JAC-12")
@given(data=st.data())
def test_an_integer_gradient_is_cast_to_the_outputs_dtype(engine, data):
    """backward(v) with an int64 gradient (torch.tensor of Python ints) works: v is cast to the
    output's float dtype (out's retained .grad has out's dtype) and the leaves get v^T J."""
    program = data.draw(programs(engine, output="vector", candidates=computed_output),
                        label="program")
    shape = program.output_shape()
    v = np.array(data.draw(st.lists(st.integers(-3, 3), min_size=int(np.prod(shape)),
                                    max_size=int(np.prod(shape))), label="gradient"),
                 dtype=np.float64).reshape(shape)
    script = Script(engine)
    script.build(program)
    script.run("out.retain_grad()",
               f"out.backward(torch.tensor({v.astype(int).tolist()!r}))  # int64")
    script.check(f"out.grad is not None and out.grad.dtype == torch.{program.dtype}",
                 f"out is {program.dtype} but its retained .grad, from an int64 gradient, is "
                 "{None if out.grad is None else out.grad.dtype}")
    script.check_close("out.grad", v, dtype=program.dtype, oracle="the gradient given")
    assert_leaf_grads(script, program, analytic_grads(program, v), oracle="analytic v^T J")


@behaviour("JAC-12")
@needs("inplace")
def test_seed_index_assignment_with_an_integer_gradient(engine):
    """Seed 003 ported to today's torch: torch.FloatTensor([[1, 1]]) written as
    torch.tensor([[1, 1]]) is an int64 gradient, and m.grad is still [[4, 27]]."""
    script = Script(engine)
    script.run("m = torch.tensor([[2.0, 3.0]], requires_grad=True)", "n = torch.zeros(1, 2)",
               "n[0, 0] = m[0, 0] ** 2", "n[0, 1] = m[0, 1] ** 3",
               "n.backward(torch.tensor([[1, 1]]))")
    script.check("m.grad is not None and [m.grad[0, 0].item(), m.grad[0, 1].item()] == [4.0, 27.0]",
                 "m.grad from the int64 gradient [[1, 1]] is {m.grad}, expected [[4.0, 27.0]]")


@behaviour("JAC-14")
@needs("autograd_backward")
@given(data=st.data())
def test_several_roots_sum_and_need_one_gradient_each(engine, data):
    """torch.autograd.backward([r1, ..., rk], [g1, ..., gk]) for two to four outputs built
    separately on the same leaves, r_i = c_i out (distinct factors: each root's gradient must meet
    its own root), accumulates the sum of every c_i g_i^T J in one pass; with one gradient fewer
    than roots it raises RuntimeError, and with a number or a list in place of a gradient at a
    drawn position TypeError, accumulating nothing."""
    count = data.draw(counts(FUNCTION_OUTPUTS, low=2), label="number of roots")
    program = data.draw(programs(engine, output="vector"), label="program")
    gradients = [data.draw(cotangents(program.output_shape(), program.dtype), label=f"g{i + 1}")
                 for i in range(count)]
    leaves = [leaf.name for leaf in program.leaves]
    script = Script(engine)
    script.run("roots = []")
    for i in range(count):
        script.build(program, given=leaves if i else ())
        script.run(f"roots.append(out * {ROOT_FACTORS[i]})")
    texts = [_tensor(program, g) for g in gradients]
    script.raises(f"torch.autograd.backward(roots, [{', '.join(texts[:-1])}])")
    position = data.draw(st.integers(0, count - 1), label="position of the non-tensor")
    wrong = data.draw(st.sampled_from(["1.0", "[1.0]"]), label="non-tensor gradient")
    script.raises(f"torch.autograd.backward(roots, "
                  f"[{', '.join(texts[:position] + [wrong] + texts[position + 1:])}])",
                  error="TypeError")
    for leaf in program.grad_leaves():
        script.check(f"{leaf.name}.grad is None",
                     f"{leaf.name}.grad was filled by a backward that raised")
    factors = ROOT_FACTORS[:count]
    expected = Gradients(analytic_grads(program, sum(c * g for c, g in zip(factors, gradients))),
                         sum(abs(c) * analytic_grads(program, g).magnitude
                             for c, g in zip(factors, gradients)))
    with script.control():
        script.run(f"torch.autograd.backward(roots, [{', '.join(texts)}])")
        assert_leaf_grads(script, program, expected, oracle="analytic sum of c_i g_i^T J")


@behaviour("JAC-15")
@needs("autograd_backward", "autograd_grad")
@given(data=st.data())
def test_each_api_names_its_gradient_argument(engine, data):
    """The gradient v is gradient= to Tensor.backward, grad_tensors= to autograd.backward and
    grad_outputs= to autograd.grad; each gives v^T J."""
    program = data.draw(programs(engine, output="vector"), label="program")
    v = data.draw(cotangents(program.output_shape(), program.dtype), label="gradient")
    leaves = program.grad_leaves()
    expected = analytic_grads(program, v)
    script = Script(engine)
    script.build(program)
    script.run(f"v = {_tensor(program, v)}",
               f"grads = torch.autograd.grad(out, [{', '.join(leaf.name for leaf in leaves)}], "
               "grad_outputs=v, retain_graph=True)")
    for index, leaf in enumerate(leaves):
        script.check_close(f"grads[{index}]", expected[leaf.name], dtype=program.dtype,
                           oracle="analytic v^T J (grad_outputs=v)", magnitude=expected.magnitude)
    script.run("torch.autograd.backward(out, grad_tensors=v, retain_graph=True)")
    assert_leaf_grads(script, program, expected, oracle="analytic v^T J (grad_tensors=v)")
    script.run("out.backward(gradient=v)")
    assert_leaf_grads(script, program, expected, scale=2,
                      oracle="analytic v^T J, then again with gradient=v")


@behaviour("JAC-16")
@given(data=st.data())
def test_a_gradient_that_requires_grad_is_a_constant_without_create_graph(engine, data):
    """backward(v) with a v that requires grad, without create_graph: the grads are plain
    tensors (they do not require grad) and v gets no .grad."""
    program = data.draw(programs(engine, output="vector"), label="program")
    v = data.draw(cotangents(program.output_shape(), program.dtype), label="gradient")
    script = Script(engine)
    script.build(program)
    script.run(f"v = {tensor_literal(v, program.dtype, requires_grad=True)}", "out.backward(v)")
    assert_leaf_grads(script, program, analytic_grads(program, v), oracle="analytic v^T J")
    for leaf in program.grad_leaves():
        script.check(f"not {leaf.name}.grad.requires_grad",
                     f"{leaf.name}.grad requires grad after backward(v) without create_graph")
    script.check("v.grad is None", "v got .grad {v.grad} from a backward without create_graph")


@behaviour("JAC-16")
@needs("autograd_grad", "higher_order")
@given(data=st.data())
def test_with_create_graph_the_vjp_is_differentiable_in_the_gradient(engine, data):
    """g = autograd.grad(out, [x], v, create_graph=True) is J^T v and depends on v: backward of
    sum(g) gives v.grad = J 1, the Jacobian's row sums (where J = 0, g may be a constant)."""
    program, leaf = _program_and_leaf(data, engine)
    v = data.draw(cotangents(program.output_shape(), program.dtype), label="gradient")
    jacobian, magnitude = _analytic_jacobian(program, leaf.name)
    script = Script(engine)
    script.build(program)
    script.run(f"v = {tensor_literal(v, program.dtype, requires_grad=True)}",
               f"g, = torch.autograd.grad(out, [{leaf.name}], v, create_graph=True)",
               "if g.requires_grad:  # else g is a constant: J = 0 (torch's x ** 0, for one)",
               "    g.sum().backward()",
               "v_grad = torch.zeros_like(v) if v.grad is None else v.grad")
    script.check_close("v_grad", jacobian.sum(axis=1).reshape(program.output_shape()),
                       dtype=program.dtype, oracle="analytic J 1", magnitude=magnitude)


@behaviour("JAC-17")
@given(data=st.data())
def test_a_one_element_outputs_gradient_scales_the_gradients(engine, data):
    """On a one-element output backward(c) gives c times what backward() gives: the implicit
    gradient is a tensor of ones, an explicit one is used as given."""
    _check_backward_with_a_gradient(engine, data, "scalar")


@behaviour("JAC-17")
def test_seed_backward_without_gradient_is_backward_of_one(engine):
    """Seed 001: backward() is backward(torch.tensor(1.0)). For y = x ** 2 at x = 2 both give
    x.grad 4, and backward(torch.tensor(5.0)) gives 20."""
    script = Script(engine)
    script.run("x = torch.tensor(2.0, requires_grad=True)", "(x ** 2).backward()")
    script.check("x.grad is not None and x.grad.item() == 4.0", "backward() gave {x.grad}, not 4")
    for gradient, expected in (("1.0", 4.0), ("5.0", 20.0)):
        script.run("x.grad = None", f"(x ** 2).backward(torch.tensor({gradient}))")
        script.check(f"x.grad is not None and x.grad.item() == {expected}",
                     f"backward(torch.tensor({gradient})) did not give {expected}",
                     show=("x.grad",))


@behaviour("JAC-18")
@control("test_requires_grad.py::test_the_root_that_does_not_require_grad_is_named")
@needs("messages")
@pytest.mark.parametrize("call", [
    pytest.param("torch.autograd.backward({roots}, {grads})", marks=needs("autograd_backward")),
    pytest.param("torch.autograd.grad({roots}, {leaves}, {grads})", marks=needs("autograd_grad"))])
@given(data=st.data(), roots=st.integers(2, 3))
def test_none_for_a_root_that_does_not_require_grad(engine, call, data, roots):
    """None in grad_tensors is accepted for a root of several elements that does not require
    grad: the call raises for that root not requiring grad, 'element i of tensors does not
    require grad and does not have a grad_fn', not for the missing gradient ('grad can be
    implicitly created only for scalar outputs')."""
    program = data.draw(programs(engine), label="program")
    index = data.draw(st.integers(0, roots - 1), label="index of the constant root")
    shape = data.draw(st.sampled_from([(2,), (1, 3), (2, 2)]), label="its shape")
    listed = [f"torch.ones({shape})" if position == index else "out" for position in range(roots)]
    leaves = ", ".join(leaf.name for leaf in program.grad_leaves())
    script = Script(engine)
    script.build(program)
    script.raises(call.format(roots=f"[{', '.join(listed)}]", leaves=f"[{leaves}]",
                              grads=f"[{', '.join(['None'] * roots)}]"),
                  f"element {index} of tensors does not require grad and does not have a grad_fn")
