"""The gradient of a broadcast input has the input's shape and is the sum, over the broadcast
dimensions, of the gradient its expanded copy would get (BC-1, BC-2, BC-5)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.program import Leaf, Node, Program
from autograd_conformance.harness.script import Script, literal
from autograd_conformance.harness.strategies import broadcastable_shape, float_dtypes, shapes, values

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs


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


def _reduced(array: str, shape, small_shape) -> str:
    """Script text: `array` (of `shape`) summed over the dimensions that broadcasting added or
    stretched to reach it from `small_shape`."""
    extra = len(shape) - len(small_shape)
    if extra:
        array = f"{array}.sum(axis={tuple(range(extra))})"
    stretched = tuple(i for i, size in enumerate(small_shape)
                      if size == 1 and shape[extra + i] != 1)
    return f"{array}.sum(axis={stretched}, keepdims=True)" if stretched else array


@behaviour("BC-1")
@given(data=st.data())
def test_broadcast_input_gradient_is_summed_to_its_shape(engine, data):
    """b.grad has b's shape and equals the gradient of b's explicit broadcast, summed over the
    broadcast dimensions (algebraic oracle), and the analytic oracle."""
    program = data.draw(broadcast_programs(engine), label="program")
    big_shape, small_shape = program.leaf("x0").values.shape, program.leaf("x1").values.shape
    expected = analytic_grads(program)
    script = Script(engine)
    script.run("# The algebraic oracle: the program with x1 broadcast explicitly to x0's shape")
    script.build(_expanded(program))
    script.run("out.backward()",
               "expanded_grad = x1.grad",
               "# The program itself: x1 broadcast by the op")
    script.build(program)
    script.run("out.backward()")
    script.check("x1.grad is not None", "x1 requires grad and takes part, but .grad is None")
    script.check_equal("tuple(x1.grad.shape)", small_shape, why="x1's shape")
    script.check("expanded_grad is not None", "the expanded x1 got no .grad")
    script.check_agrees("x1.grad", _reduced("to_numpy(expanded_grad)", big_shape, small_shape),
                        dtype=program.dtype, magnitude=expected.magnitude,
                        oracle="the expanded input's gradient summed over broadcast dims")
    script.check_close("x1.grad", expected["x1"], dtype=program.dtype, oracle="analytic",
                       magnitude=expected.magnitude)


@behaviour("BC-2")
@given(data=st.data())
def test_zero_dim_leaves_get_zero_dim_gradients(engine, data):
    """A 0-dim leaf broadcast over a tensor gets a 0-dim gradient: the sum of the contributions."""
    program = data.draw(broadcast_programs(engine, small_shape=()), label="program")
    script = Script(engine)
    script.build(program)
    script.run("out.backward()")
    script.check("x1.grad is not None and tuple(x1.grad.shape) == ()",
                 "x1.grad has shape {None if x1.grad is None else tuple(x1.grad.shape)}")
    expected = analytic_grads(program)
    script.check_close("x1.grad", expected["x1"], dtype=program.dtype, oracle="analytic",
                       magnitude=expected.magnitude)


@behaviour("BC-5")
@given(shape=shapes(min_dims=1), data=st.data())
def test_mean_distributes_one_over_n(engine, shape, data):
    """The gradient of x.mean() is 1/numel everywhere; of x.mean(dim=d).sum() it is
    1/shape[d]."""
    dim = data.draw(st.one_of(st.none(), st.integers(0, len(shape) - 1)), label="dim")
    dtype = data.draw(float_dtypes(engine), label="dtype")
    program = Program(dtype, (Leaf("x0", data.draw(values(shape, dtype), label="x0"), True),),
                      (Node("v1", "mean", ("x0",), dim),)
                      + ((Node("v2", "sum", ("v1",)),) if dim is not None else ()),
                      "v1" if dim is None else "v2")
    script = Script(engine)
    script.build(program)
    script.run("out.backward()")
    expected = np.full(shape, 1.0 / (np.prod(shape) if dim is None else shape[dim]))
    script.check_close("x0.grad", expected, dtype=dtype, oracle="analytic 1/N")


@behaviour("BC-1")
@needs("autograd_grad", "higher_order")
@given(data=st.data())
def test_broadcast_input_gradient_is_summed_under_create_graph_too(engine, data):
    """With create_graph=True, where the backward pass is itself recorded, the gradient of a
    broadcast input still has the input's shape and the analytic oracle's values."""
    program = data.draw(broadcast_programs(engine), label="program")
    small_shape = program.leaf("x1").values.shape
    script = Script(engine)
    script.build(program)
    script.run("g0, g1 = torch.autograd.grad(out, (x0, x1), create_graph=True)")
    script.check_equal("tuple(g1.shape)", small_shape, why="x1's shape")
    expected = analytic_grads(program)
    for name, grad in (("x0", "g0"), ("x1", "g1")):
        script.check_close(grad, expected[name], dtype=program.dtype, oracle="analytic",
                           magnitude=expected.magnitude)


@behaviour("BC-1")
@needs("inplace")
@given(shape=shapes(min_dims=2), data=st.data())
def test_a_value_with_more_dims_than_its_slot_gets_the_slot_gradient_summed(engine, shape, data):
    """y[...] = v, where v has extra leading 1s before the slot's dims (some of them 1, stretched):
    v.grad has v's shape, the slot's gradient summed over the stretched dims. The slot has two
    dims or more, so that its gradient has more dims than v's leading 1s."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    body = tuple(1 if data.draw(st.booleans(), label="size 1") else size for size in shape)
    v_shape = (1,) * data.draw(st.integers(1, 2), label="leading 1s") + body
    v = data.draw(values(v_shape, dtype), label="v")
    gradient = data.draw(values(shape, dtype, bound=2.0), label="gradient")
    stretched = tuple(dim for dim, size in enumerate(body) if size == 1 and shape[dim] != 1)
    script = Script(engine)
    script.run(f"v = torch.tensor({literal(v)}, dtype=torch.{dtype}, requires_grad=True)",
               f"y = torch.zeros({', '.join(map(str, shape))}, dtype=torch.{dtype})",
               "y[...] = v", f"y.backward(torch.tensor({literal(gradient)}, dtype=torch.{dtype}))")
    script.check_equal("tuple(v.grad.shape)", v_shape, why="v's shape")
    script.check_close("v.grad", gradient.sum(axis=stretched, keepdims=True).reshape(v_shape),
                       dtype=dtype, oracle="the slot's gradient summed over the stretched dims",
                       magnitude=np.abs(gradient).sum(axis=stretched).max())


@behaviour("BC-1")
@given(shape=shapes(min_dims=1), data=st.data())
def test_broadcasting_onto_an_empty_dimension_gives_zero_gradients(engine, shape, data):
    """x + e, where a size-1 dim of x meets a size-0 dim of e: the result is empty, and x.grad
    is zeros of x's shape (a sum over no elements)."""
    dim = data.draw(st.integers(0, len(shape) - 1), label="dim")
    x_shape = shape[:dim] + (1,) + shape[dim + 1:]
    empty_shape = shape[:dim] + (0,) + shape[dim + 1:]
    dtype = data.draw(float_dtypes(engine), label="dtype")
    x = data.draw(values(x_shape, dtype), label="x")
    script = Script(engine)
    script.run(f"x = torch.tensor({literal(x)}, dtype=torch.{dtype}, requires_grad=True)",
               f"e = torch.zeros({', '.join(map(str, empty_shape))}, dtype=torch.{dtype})",
               "(x + e).sum().backward()")
    script.check_close("x.grad", np.zeros(x_shape), dtype=dtype, oracle="sum over no elements")


@behaviour("BC-7")
@needs("autograd_grad", "higher_order", "graph")
@given(data=st.data())
def test_a_broadcast_input_s_gradient_is_recorded_as_torch_s_sum_to(engine, data):
    """g = grad(x0 + x1, x1, w, create_graph=True) for x1 broadcast onto x0's shape: g's grad_fn
    is SumBackward1 over w's node, under a ViewBackward0 only where x1 has fewer dims than x0;
    for a 0-dim x1, SumBackward0."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    big = data.draw(shapes(min_dims=1), label="big shape")
    small = data.draw(st.just(()) | broadcastable_shape(big).filter(lambda s: s != big),
                      label="small shape")
    script = Script(engine)
    for name, shape in (("x0", big), ("x1", small), ("w", big)):
        array = data.draw(values(shape, dtype), label=name)
        script.run(f"{name} = torch.tensor({literal(array)}, dtype=torch.{dtype}, "
                   "requires_grad=True)")
    script.run("g, = torch.autograd.grad(x0 + x1, x1, w, create_graph=True)",
               "chain, node = [], g.grad_fn",
               "while node is not None and not hasattr(node, 'variable'):",
               "    chain.append(node.name())",
               "    node = node.next_functions[0][0]")
    viewed = 0 < len(small) < len(big)
    expected = (["ViewBackward0", "SumBackward1"] if viewed else
                ["SumBackward1"] if small else ["SumBackward0"])
    script.check_equal("chain", expected, why=f"sum_to of a {big} gradient to {small}: " + (
        "a sum keeping the summed dims" + (", then a view" if viewed else "") if small
        else "the sum of everything"))
    script.check("node is not None and node.variable is w", "the sum does not lead to w",
                 show=("node",))
    script.check_agrees("g", _reduced("values(w)", big, small), dtype=dtype,
                        oracle="w summed to x1's shape")
