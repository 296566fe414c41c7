"""A tensor used several times receives the sum of all its uses' contributions: diamonds, the
same tensor twice in one op (one edge per operand slot), and one leaf in several outputs (MISC-1,
MISC-2, GFN-3, ACC-2)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.program import Leaf, Node, Program
from autograd_conformance.harness.script import Script, literal
from autograd_conformance.harness.strategies import float_dtypes, programs, shapes, values

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
TWO_OPERAND_OPS = st.sampled_from(["add", "sub", "mul", "div", "matmul"])


def _with_reuse(program):
    """`program` continued so that its output u is used four times:
    sum(tanh(u) + u * u + u)."""
    u = program.output
    count = len(program.leaves) + len(program.nodes)
    names = [f"v{count + i}" for i in range(5)]
    extra = (Node(names[0], "tanh", (u,)), Node(names[1], "mul", (u, u)),
             Node(names[2], "add", (names[0], names[1])), Node(names[3], "add", (names[2], u)),
             Node(names[4], "sum", (names[3],)))
    return Program(program.dtype, program.leaves, program.nodes + extra, names[4])


@behaviour("MISC-1")
@given(data=st.data())
def test_diamonds_sum_the_contributions_of_every_use(engine, data):
    """In sum(tanh(u) + u * u + u), u is used four times: the leaves' gradients and u's retained
    gradient are the sums over all paths (the analytic oracle)."""
    base = data.draw(programs(engine, output="any", max_ops=4), label="program")
    program = _with_reuse(base)
    u = base.output
    leaves = [leaf.name for leaf in program.grad_leaves()]
    expected = analytic_grads(program, wrt=leaves + [u])
    # u's own gradient is checked where u requires grad; retain_grad() is for a non-leaf (a leaf
    # that requires grad keeps its .grad anyway).
    u_is_non_leaf = program.requires_grad(u) and u not in {leaf.name for leaf in program.leaves}
    script = Script(engine)
    script.build(program)
    if u_is_non_leaf:
        script.run(f"{u}.retain_grad()")
    script.run("out.backward()")
    checked = leaves + [u] if program.requires_grad(u) and u not in leaves else leaves
    for name in checked:
        script.check_close(f"{name}.grad", expected[name], dtype=program.dtype,
                           oracle="analytic (sum over paths)", magnitude=expected.magnitude)


def _the_same_tensor_twice(engine, data, op):
    """A program computing sum(tanh(x0 op x0)), with x0's values in op's domain."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    shape = data.draw(st.integers(1, 3).map(lambda n: (n, n)) if op == "matmul"
                      else shapes(), label="shape")
    bound_values = data.draw(values(shape, dtype), label="x0")
    if op == "div":
        shifted = bound_values + 4.0 * (bound_values >= 0) - 4.0 * (bound_values < 0)
        bound_values = np.asarray(shifted, dtype=np.float32 if dtype == "float32" else np.float64
                                  ).astype(np.float64)  # away from 0, exact in dtype
    return Program(dtype, (Leaf("x0", bound_values, True),),
                   (Node("v1", op, ("x0", "x0")), Node("v2", "tanh", ("v1",)),
                    Node("v3", "sum", ("v2",))), "v3")


@behaviour("MISC-2")
@given(data=st.data(), op=TWO_OPERAND_OPS)
def test_the_same_tensor_twice_in_one_op(engine, data, op):
    """x op x counts both operand slots: x * x gives 2x, x + x gives 2, x - x and x / x give 0,
    x @ x gives x^T G + G x^T."""
    program = _the_same_tensor_twice(engine, data, op)
    script = Script(engine)
    script.build(program)
    script.run("out.backward()")
    expected = analytic_grads(program)
    script.check_close("x0.grad", expected["x0"], dtype=program.dtype,
                       oracle=f"analytic through x0 {op} x0", magnitude=expected.magnitude)


@behaviour("MISC-15")
@given(data=st.data(), op=st.sampled_from(["sub", "div"]))
def test_both_slots_add_in_operand_order_to_what_arrived(engine, data, op):
    """sum((x0 - x0) * e + later), or x0 / x0 at x0 = 1, with e half an ulp of 1 and `later` a use
    of x0 recorded afterwards, whose node runs first (HOOK-13): x0's slots bring e then -e to the
    1 already there, (1 + e) - e rounds to 1 - e, where the other order would give exactly 1."""
    later = data.draw(st.sampled_from(["x0 * 1.0", "x0 + 0.0"] + (
        [] if "clone" in engine.unavailable_ops else ["x0.clone()"])), label="later use")
    dtype = data.draw(float_dtypes(engine), label="dtype")
    size = data.draw(st.integers(1, 3), label="size")
    half_ulp = 2.0 ** (-24 if dtype == "float32" else -53)
    script = Script(engine)
    script.run(f"x0 = torch.ones({size}, dtype=torch.{dtype}, requires_grad=True)",
               f"v = x0 {'-' if op == 'sub' else '/'} x0",
               f"out = (v * {half_ulp!r} + {later}).sum()",
               "out.backward()")
    script.check_equal("to_numpy(x0.grad).tolist()", [1.0 - half_ulp] * size,
                       why="(1 + e) - e in floating point: the slots of one node added in "
                       "operand order after the contribution that arrived before them")


@behaviour("GFN-3")
@needs("graph")
@given(data=st.data(), op=TWO_OPERAND_OPS)
def test_both_slots_of_x_op_x_hold_the_same_edge(engine, data, op):
    """The node of x op x has next_functions ((node, 0), (node, 0)): one edge per operand slot,
    both to x's AccumulateGrad node, at its output 0."""
    program = _the_same_tensor_twice(engine, data, op)
    script = Script(engine)
    script.build(program)
    script.run("edges = tuple(v1.grad_fn.next_functions)")
    script.check("len(edges) == 2 and edges[0][0] is not None and edges[0][0].variable is x0",
                 f"x0 {op} x0 should have two edges to x0's AccumulateGrad", show=("edges",))
    script.check("edges[1][0] is edges[0][0] and edges[0][1] == 0 and edges[1][1] == 0",
                 f"x0 {op} x0's next_functions should be (node, 0) twice", show=("edges",))


@behaviour("ACC-2")
@given(data=st.data())
def test_one_leaf_in_several_outputs_accumulates_the_sum(engine, data):
    """The same leaves used by two separately built outputs: backward on each accumulates the
    sum of the two gradients (accumulation equals a sum)."""
    first = data.draw(programs(engine), label="program")
    second = _with_reuse(first.with_requires_grad({}))
    one = analytic_grads(first)
    two = analytic_grads(second)
    script = Script(engine)
    script.build(first)
    script.run("out1 = out")
    # The program again on the same leaves, continued as sum(tanh(out) + out * out + out).
    script.build(second, given=[leaf.name for leaf in first.leaves])
    script.run("out2 = out", "out1.backward()", "out2.backward()")
    for leaf in first.grad_leaves():
        script.check_close(f"{leaf.name}.grad", one[leaf.name] + two[leaf.name],
                           dtype=first.dtype, oracle="sum of the two outputs' analytic gradients",
                           magnitude=one.magnitude + two.magnitude)


@behaviour("MISC-16")
@needs("node_hooks")
@pytest.mark.parametrize("how", [
    "out.backward()",
    pytest.param("out.backward(inputs=[x])", marks=needs("backward_inputs")),
    pytest.param("x.grad, = torch.autograd.grad(out, [x])", marks=needs("autograd_grad"))])
@given(data=st.data(), depth=st.integers(40, 64))
def test_each_node_runs_once_however_many_paths_reach_it(engine, data, depth, how):
    """y = y + y, `depth` times from x: 2^depth paths lead from the output to x through `depth`
    nodes, and each node runs once (its pre-hook fires once), also where only the nodes leading
    to x run (inputs=, autograd.grad): an engine that walks every path never ends. x's gradient
    is 2^depth."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    x = data.draw(values(data.draw(shapes(), label="shape"), dtype), label="x")
    script = Script(engine)
    script.run(f"x = torch.tensor({literal(x)}, dtype=torch.{dtype}, requires_grad=True)",
               "ran, y = [], x",
               f"for k in range({depth}):",
               "    y = y + y",
               "    y.grad_fn.register_prehook(lambda grad_outputs, k=k: ran.append(k))",
               "out = y.sum()", how)
    script.check_equal("sorted(ran)", list(range(depth)),
                       why="each of the doublings' nodes runs once")
    script.check_close("x.grad", np.full(np.shape(x), 2.0 ** depth), dtype=dtype,
                       oracle=f"2^{depth}, the number of paths")
