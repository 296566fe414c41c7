"""Non-scalar outputs: backward needs a gradient, computes v^T J, and unit vectors give the
Jacobian's rows (JAC-*)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import (assert_leaf_grads, build, grad_or_none, raises_runtime_error,
                            record_reproducer, shape_of)
from autograd_conformance.harness.oracles import assert_close, finite_difference_grads
from autograd_conformance.harness.strategies import cotangents, programs, unit_vectors

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
ONE_ELEMENT_SHAPES = [(), (1,), (1, 1), (1, 1, 1)]


def _as_tensor(engine, program, array):
    return engine.ns.tensor(array.tolist(), dtype=getattr(engine.ns, program.dtype))


def _script_tensor(program, array):
    return f"torch.tensor({array.tolist()!r}, dtype=torch.{program.dtype})"


@behaviour("JAC-1")
@given(data=st.data())
def test_backward_without_gradient_on_non_scalar_raises(engine, data):
    program = data.draw(programs(engine, output="vector"), label="program")
    tensors = build(program, engine, "out.backward()  # must raise")
    with raises_runtime_error():
        tensors[program.output].backward()


@behaviour("JAC-3")
@given(data=st.data())
def test_backward_without_gradient_on_any_one_element_shape(engine, data):
    program = data.draw(programs(engine), label="program")
    shape = data.draw(st.sampled_from(ONE_ELEMENT_SHAPES), label="one-element shape")
    tensors = build(program, engine, f"out.reshape({shape}).backward()")
    tensors[program.output].reshape(shape).backward()
    expected = finite_difference_grads(program)
    assert_leaf_grads(engine, program, tensors, expected, oracle="finite-difference")


@behaviour("JAC-5")
@given(data=st.data())
def test_backward_with_gradient_is_the_vjp(engine, data):
    program = data.draw(programs(engine, output="vector"), label="program")
    v = data.draw(cotangents(program.output_shape(), program.dtype), label="gradient")
    tensors = build(program, engine, f"out.backward({_script_tensor(program, v)})")
    tensors[program.output].backward(_as_tensor(engine, program, v))
    expected = finite_difference_grads(program, v)
    assert_leaf_grads(engine, program, tensors, expected, oracle="finite-difference v^T J")


@behaviour("JAC-5")
@given(data=st.data())
def test_vjp_is_linear_in_the_gradient(engine, data):
    program = data.draw(programs(engine, output="vector"), label="program")
    shape = program.output_shape()
    u = data.draw(cotangents(shape, program.dtype), label="u")
    v = data.draw(cotangents(shape, program.dtype), label="v")
    a, b = data.draw(st.sampled_from([(1.0, 1.0), (2.0, -1.0), (0.5, 3.0)]), label="a, b")
    combined = a * u + b * v
    grads = []
    for cotangent in (u, v, combined):
        tensors = build(program, engine, f"out.backward({_script_tensor(program, cotangent)})")
        tensors[program.output].backward(_as_tensor(engine, program, cotangent))
        grads.append({leaf.name: grad_or_none(engine, tensors[leaf.name])
                      for leaf in program.grad_leaves()})
    for leaf in program.grad_leaves():
        assert_close(grads[2][leaf.name], a * grads[0][leaf.name] + b * grads[1][leaf.name],
                     dtype=program.dtype, oracle=f"linearity ({a} u + {b} v)",
                     what=f"{leaf.name}.grad")


def _jacobian_rows(engine, program, tensors, leaf_name):
    """Row i of d out / d leaf from backward(e_i, retain_graph=True), zeroing .grad between."""
    out, leaf = tensors[program.output], tensors[leaf_name]
    rows = []
    for unit in unit_vectors(program.output_shape()):
        leaf.grad = None
        out.backward(_as_tensor(engine, program, unit), retain_graph=True)
        grad = grad_or_none(engine, leaf)
        rows.append(np.zeros(program.leaf(leaf_name).values.shape) if grad is None else grad)
    return np.stack([row.reshape(-1) for row in rows])


def _finite_difference_jacobian(program, leaf_name):
    return np.stack([finite_difference_grads(program, unit, wrt=[leaf_name])[leaf_name].reshape(-1)
                     for unit in unit_vectors(program.output_shape())])


def _program_and_leaf(data, engine):
    """A program with a vector output and one of its leaves that get .grad."""
    program = data.draw(programs(engine, output="vector", max_ops=4), label="program")
    return program, data.draw(st.sampled_from(program.grad_leaves()), label="leaf")


@behaviour("JAC-6")
@given(data=st.data())
def test_unit_gradients_give_jacobian_rows(engine, data):
    program, leaf = _program_and_leaf(data, engine)
    tensors = build(program, engine,
                    f"# for each unit vector e_i of out's shape: {leaf.name}.grad = None; "
                    f"out.backward(e_i, retain_graph=True); row_i = {leaf.name}.grad.flatten()")
    rows = _jacobian_rows(engine, program, tensors, leaf.name)
    assert_close(rows, _finite_difference_jacobian(program, leaf.name), dtype=program.dtype,
                 oracle="finite-difference Jacobian", what=f"Jacobian d out / d {leaf.name}")


@behaviour("JAC-6")
def test_seed_matmul_jacobian_rows(ag):
    """Seed 000: x = [[1, 2]], y = [[3, 4], [5, 6]], loss = x @ y: backward([[1, 0]]) gives
    x.grad [[3, 5]]; after zeroing, backward([[0, 1]]) gives [[4, 6]]."""
    record_reproducer("x = torch.tensor([[1., 2.]], requires_grad=True)\n"
                      "y = torch.tensor([[3., 4.], [5., 6.]])\n"
                      "loss = x @ y\nloss.backward(torch.tensor([[1., 0.]]), retain_graph=True)\n"
                      "x.grad.zero_()\nloss.backward(torch.tensor([[0., 1.]]))")
    x = ag.tensor([[1.0, 2.0]], requires_grad=True)
    y = ag.tensor([[3.0, 4.0], [5.0, 6.0]])
    loss = x @ y
    loss.backward(ag.tensor([[1.0, 0.0]]), retain_graph=True)
    assert x.grad is not None, "x.grad is None"
    assert [x.grad[0, 0].item(), x.grad[0, 1].item()] == [3.0, 5.0]
    x.grad.zero_()
    loss.backward(ag.tensor([[0.0, 1.0]]))
    assert x.grad is not None, "x.grad is None"
    assert [x.grad[0, 0].item(), x.grad[0, 1].item()] == [4.0, 6.0]


@behaviour("JAC-6", "INP-14")
@needs("inplace")
def test_seed_index_assignment_jacobian(ag):
    """Seed 003: n = zeros(1, 2); n[0, 0] = m[0, 0] ** 2; n[0, 1] = m[0, 1] ** 3 with m = [[2, 3]]
    gives m.grad [[4, 27]] for gradient [[1, 1]]; k[0, 0] = m00 ** 2 + 3 m01,
    k[0, 1] = m01 ** 2 + 2 m00 has the Jacobian [[4, 2], [3, 6]] (columns from unit rows)."""
    record_reproducer("m = torch.tensor([[2., 3.]], requires_grad=True)\n"
                      "n = torch.zeros(1, 2)\nn[0, 0] = m[0, 0] ** 2\nn[0, 1] = m[0, 1] ** 3\n"
                      "n.backward(torch.tensor([[1., 1.]]))")
    m = ag.tensor([[2.0, 3.0]], requires_grad=True)
    n = ag.zeros(1, 2)
    n[0, 0] = m[0, 0] ** 2
    n[0, 1] = m[0, 1] ** 3
    n.backward(ag.tensor([[1.0, 1.0]]))
    assert m.grad is not None, "m.grad is None"
    assert [m.grad[0, 0].item(), m.grad[0, 1].item()] == [4.0, 27.0]

    m.grad = None
    k = ag.zeros(1, 2)
    k[0, 0] = m[0, 0] ** 2 + 3 * m[0, 1]
    k[0, 1] = m[0, 1] ** 2 + 2 * m[0, 0]
    columns = []
    for unit in ([[1.0, 0.0]], [[0.0, 1.0]]):
        k.backward(ag.tensor(unit), retain_graph=True)
        assert m.grad is not None, "m.grad is None"
        columns.append([m.grad[0, 0].item(), m.grad[0, 1].item()])
        m.grad.zero_()
    assert [[columns[0][0], columns[1][0]], [columns[0][1], columns[1][1]]] == [[4.0, 2.0],
                                                                               [3.0, 6.0]]


@behaviour("JAC-8")
@needs("functional")
@given(data=st.data())
def test_functional_jacobian_matches_unit_rows(engine, data):
    program, leaf = _program_and_leaf(data, engine)
    tensors = build(program, engine,
                    f"torch.autograd.functional.jacobian(lambda {leaf.name}: <program>, "
                    f"{leaf.name})")
    rows = _jacobian_rows(engine, program, tensors, leaf.name)

    def function(argument):
        return program.run_on(engine, given={leaf.name: argument})[program.output]

    jacobian = engine.ns.autograd.functional.jacobian(function, tensors[leaf.name].detach())
    layout = program.output_shape() + leaf.values.shape  # output dims first, then input dims
    assert shape_of(jacobian) == layout, (
        f"jacobian has shape {shape_of(jacobian)}; torch's layout is output dims then input "
        f"dims: {layout}")
    got = engine.to_numpy(jacobian).reshape(rows.shape)
    assert_close(got, rows, dtype=program.dtype, oracle="unit-vector rows",
                 what="autograd.functional.jacobian")
