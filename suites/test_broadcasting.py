"""The gradient of a broadcast input has the input's shape and is the sum, over the broadcast
dimensions, of the gradient its expanded copy would get (BC-1, BC-2, BC-5)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import build, grad_or_none, shape_of
from autograd_conformance.harness.oracles import assert_close, finite_difference_grads
from autograd_conformance.harness.program import Leaf, Node, Program
from autograd_conformance.harness.strategies import broadcastable_shape, float_dtypes, shapes, values

behaviour = pytest.mark.behaviour


@st.composite
def broadcast_programs(draw, engine, small_shape=None):
    """tanh(big op small).sum() where `small` broadcasts onto `big`'s shape."""
    dtype = draw(float_dtypes(engine), label="dtype")
    big_shape = draw(shapes(min_dims=1), label="big shape")
    small = small_shape if small_shape is not None else draw(broadcastable_shape(big_shape),
                                                             label="small shape")
    op = draw(st.sampled_from(["add", "sub", "mul"]), label="op")
    leaves = (Leaf("x0", draw(values(big_shape, dtype), label="x0"), True),
              Leaf("x1", draw(values(small, dtype), label="x1"), True))
    nodes = (Node("v2", op, ("x0", "x1")), Node("v3", "tanh", ("v2",)), Node("v4", "sum", ("v3",)))
    return Program(dtype, leaves, nodes, "v4")


def _expanded(program):
    """The same program with x1 replaced by its explicit broadcast to x0's shape."""
    big = program.leaf("x0").values
    small = program.leaf("x1")
    full = Leaf("x1", np.broadcast_to(small.values, big.shape).copy(), True)
    return Program(program.dtype, (program.leaf("x0"), full), program.nodes, program.output)


def _reduce_to(grad, shape):
    """Sum `grad` over the dimensions that broadcasting added or stretched to reach `shape`."""
    extra = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(extra))) if extra else grad
    stretched = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched, keepdims=True) if stretched else grad


@behaviour("BC-1")
@given(data=st.data())
def test_broadcast_input_gradient_is_summed_to_its_shape(engine, data):
    """b.grad has b's shape and equals the gradient of b's explicit broadcast, summed over the
    broadcast dimensions (algebraic oracle), and the finite differences."""
    program = data.draw(broadcast_programs(engine), label="program")
    tensors = build(program, engine, "out.backward()")
    tensors[program.output].backward()
    small_shape = program.leaf("x1").values.shape
    grad = grad_or_none(engine, tensors["x1"])
    assert grad is not None and shape_of(tensors["x1"].grad) == small_shape, (
        f"x1 has shape {small_shape} but x1.grad is {None if grad is None else grad.shape}")
    expanded = _expanded(program)
    full = expanded.run_on(engine)
    full[expanded.output].backward()
    reduced = _reduce_to(grad_or_none(engine, full["x1"]), small_shape)
    assert_close(grad, reduced, dtype=program.dtype,
                 oracle="the expanded input's gradient summed over broadcast dims",
                 what="x1.grad")
    assert_close(grad, finite_difference_grads(program)["x1"], dtype=program.dtype,
                 oracle="finite-difference", what="x1.grad")


@behaviour("BC-2")
@given(data=st.data())
def test_zero_dim_leaves_get_zero_dim_gradients(engine, data):
    """A 0-dim leaf broadcast over a tensor gets a 0-dim gradient: the sum of the contributions."""
    program = data.draw(broadcast_programs(engine, small_shape=()), label="program")
    tensors = build(program, engine, "out.backward()")
    tensors[program.output].backward()
    assert shape_of(tensors["x1"].grad) == (), f"x1.grad has shape {shape_of(tensors['x1'].grad)}"
    assert_close(grad_or_none(engine, tensors["x1"]), finite_difference_grads(program)["x1"],
                 dtype=program.dtype, oracle="finite-difference", what="x1.grad")


@behaviour("BC-5")
@given(shape=shapes(min_dims=1), data=st.data())
def test_mean_distributes_one_over_n(engine, ag, shape, data):
    """The gradient of x.mean() is 1/numel everywhere; of x.mean(dim=d).sum() it is
    1/shape[d]."""
    dim = data.draw(st.one_of(st.none(), st.integers(0, len(shape) - 1)), label="dim")
    dtype = data.draw(float_dtypes(engine), label="dtype")
    program = Program(dtype, (Leaf("x0", data.draw(values(shape, dtype), label="x0"), True),),
                      (Node("v1", "mean", ("x0",), dim),)
                      + ((Node("v2", "sum", ("v1",)),) if dim is not None else ()),
                      "v1" if dim is None else "v2")
    tensors = build(program, engine, "out.backward()")
    tensors[program.output].backward()
    expected = np.full(shape, 1.0 / (np.prod(shape) if dim is None else shape[dim]))
    assert_close(grad_or_none(engine, tensors["x0"]), expected, dtype=dtype,
                 oracle="analytic 1/N", what="x0.grad")
