"""Custom differentiable operations: torch.autograd.Function subclasses with static forward and
backward, called through apply, and what ctx offers between them (FN-*), as the "Extending
torch.autograd" note and the Function API page describe them."""

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads
from autograd_conformance.harness.counts import FUNCTION_INPUTS, FUNCTION_OUTPUTS, counts
from autograd_conformance.harness.ops import OPS, backward_formulas, render
from autograd_conformance.harness.oracles import analytic_grads, analytic_jacobian
from autograd_conformance.harness.script import Script, literal, tensor_literal
from autograd_conformance.harness.strategies import (
    ARITHMETIC,
    POWERS,
    REDUCTIONS,
    SHAPING,
    UNARY_ARITHMETIC,
    UNARY_FUNCTIONS,
    VECTOR_PRODUCTS,
    cotangents,
    engine_ops,
    float_dtypes,
    full_precision_values,
    op_applications,
    programs,
    recorded_nodes,
    shapes,
    values,
)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control
pytestmark = needs("custom_function")


# -- a Function for every op of the op set -----------------------------------------------------

def _function_class(node, shapes_by_name, dtype, *, setup_context=False) -> str:
    """The source of a Function named Op_<node> computing `node`'s op, saving its inputs and
    result, with the op's backward formula from the op table (backward_source: in Tensor ops of
    g, the incoming gradient, a and b, the inputs, and r, the result); with `setup_context`,
    forward takes no ctx and setup_context saves (FN-18)."""
    inputs = ("a", "b")[:OPS[node.op].arity]
    formulas = backward_formulas(OPS[node.op], node.param,
                                 [shapes_by_name[arg] for arg in node.args],
                                 shapes_by_name[node.name], dtype)
    arguments = ", ".join(inputs)
    forward = (f"    @staticmethod\n"
               f"    def forward({arguments}):\n"
               f"        return {render(OPS[node.op], inputs, node.param)}\n"
               f"    @staticmethod\n"
               f"    def setup_context(ctx, inputs, output):\n"
               f"        ctx.save_for_backward(*inputs, output)\n"
               if setup_context else
               f"    @staticmethod\n"
               f"    def forward(ctx, {arguments}):\n"
               f"        r = {render(OPS[node.op], inputs, node.param)}\n"
               f"        ctx.save_for_backward({arguments}, r)\n"
               f"        return r\n")
    return (f"class Op_{node.name}(torch.autograd.Function):\n{forward}"
            f"    @staticmethod\n"
            f"    def backward(ctx, g):\n"
            f"        {arguments}, r = ctx.saved_tensors\n"
            f"        return {', '.join(formulas)}{',' if len(formulas) == 1 else ''}")


def _program_with_a_function(engine, data, **options):
    """A random program and one of its recorded nodes, to be computed by a Function."""
    program = data.draw(programs(engine, candidates=recorded_nodes, **options), label="program")
    name = data.draw(st.sampled_from(recorded_nodes(program)), label="node as a Function")
    return program, program.node(name)


def _build_with_function(script, program, node, **options):
    """Build `program` with `node` computed by its Function (defined first)."""
    shapes_by_name = {name: value.shape for name, value in program.evaluate().items()}
    script.run(_function_class(node, shapes_by_name, program.dtype, **options))
    call = f"{node.name} = Op_{node.name}.apply({', '.join(node.args)})"
    script.build(program, wrap=lambda name, line: [call] if name == node.name else [line])


def _check_function_of(engine, data, program, node):
    """Build `program` with `node` computed by its Function: the node's output is a recorded
    non-leaf (FN-1), and backward with a random gradient gives every leaf the op's own gradient
    (FN-4)."""
    __tracebackhide__ = True
    event(f"op as a Function: {node.op}")
    v = data.draw(cotangents(program.output_shape(), program.dtype), label="gradient")
    script = Script(engine, behaviour="FN-4")
    _build_with_function(script, program, node)
    script.check(f"{node.name}.requires_grad and not {node.name}.is_leaf "
                 f"and {node.name}.grad_fn is not None",
                 f"{node.name} = Op_{node.name}.apply(...) of an input that requires grad is not "
                 "a recorded non-leaf",
                 show=(f"{node.name}.requires_grad", f"{node.name}.is_leaf",
                       f"{node.name}.grad_fn"),
                 behaviour="FN-1")
    script.run(f"out.backward(torch.tensor({literal(v)}, dtype=torch.{program.dtype}))")
    assert_leaf_grads(script, program, analytic_grads(program, v),
                      oracle=f"analytic v^T J, {node.op} as a Function")


OP_FAMILIES = {"arithmetic": ARITHMETIC, "powers": POWERS, "functions": UNARY_FUNCTIONS,
               "unary arithmetic": UNARY_ARITHMETIC, "reductions": REDUCTIONS,
               "products": ("matmul",) + VECTOR_PRODUCTS, "indexing": SHAPING + ("index_list",)}


@behaviour("FN-4", "FN-1")
@pytest.mark.parametrize("family", sorted(OP_FAMILIES))
@given(data=st.data())
def test_a_function_written_from_an_op_gives_the_op_s_gradients(engine, family, data):
    """Each op of the op set (a family per test, so that each op is drawn), computed by a
    Function whose backward is the op's formula, applied once to leaves."""
    ops = engine_ops(engine, OP_FAMILIES[family])
    if not ops:
        pytest.skip(f"engine {engine.name!r} has none of the {family} ops (missing or set aside)")
    op = data.draw(st.sampled_from(ops), label="op")
    program = data.draw(op_applications(engine, op), label="program")
    _check_function_of(engine, data, program, program.nodes[0])


@behaviour("FN-4", "FN-1")
@given(data=st.data())
def test_a_function_inside_a_random_program_gives_its_gradients(engine, data):
    """A recorded node of a random program computed by a Function written from its op."""
    program, node = _program_with_a_function(engine, data)
    _check_function_of(engine, data, program, node)


@behaviour("FN-18")
@given(data=st.data())
def test_setup_context_gives_the_same_gradients(engine, data):
    """The same Function written as forward(*args) plus setup_context(ctx, inputs, output), which
    saves the inputs and the output: the gradients do not change."""
    program, node = _program_with_a_function(engine, data, max_ops=4)
    script = Script(engine)
    _build_with_function(script, program, node, setup_context=True)
    script.run("out.backward()")
    assert_leaf_grads(script, program, analytic_grads(program),
                      oracle=f"analytic, {node.op} as a Function with setup_context")


# -- small Functions with known gradients -------------------------------------------------------

CUBE = '''\
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3.0 * g * x * x'''


def _leaf(name, array, dtype, requires_grad=True):
    flag = ", requires_grad=True" if requires_grad else ""
    return f"{name} = torch.tensor({literal(array)}, dtype=torch.{dtype}{flag})"


def _case(engine, data, dtype=None, wide=False):
    """A dtype and moderate values of a random shape (the Cube's gradients stay exact enough);
    `wide`: the last dim has 2 or 3 elements, so that no other size broadcasts from it."""
    dtype = dtype or data.draw(float_dtypes(engine), label="dtype")
    shape = data.draw(shapes(max_dims=3 if wide else 4), label="shape")
    if wide:
        shape += (data.draw(st.integers(2, 3), label="last dim"),)
    return dtype, data.draw(full_precision_values(shape, dtype), label="x")


@behaviour("FN-2")
@needs("grad_fn_names")
@given(data=st.data())
def test_the_node_is_named_after_the_function(engine, data):
    dtype, x = _case(engine, data)
    script = Script(engine)
    script.run(CUBE, _leaf("x", x, dtype), "y = Cube.apply(x)")
    script.check("y.grad_fn.name() == 'CubeBackward'",
                 "Cube's node is named {y.grad_fn.name()!r}, torch names it 'CubeBackward'")


@behaviour("FN-3")
@given(data=st.data())
def test_forward_runs_without_recording(engine, data):
    """Inside forward grad mode is off and what it computes from a requiring argument is not
    recorded; the output is then the Function's."""
    dtype, x = _case(engine, data)
    script = Script(engine)
    script.run("seen = []",
               "class Probe(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, x):",
               "        seen.append((torch.is_grad_enabled(), (x * 2).requires_grad))",
               "        return x * 2",
               "    @staticmethod",
               "    def backward(ctx, g):",
               "        return g * 2",
               _leaf("x", x, dtype), "y = Probe.apply(x)")
    script.check("seen == [(False, False)]",
                 "inside forward (is_grad_enabled(), (x * 2).requires_grad) was {seen}: forward "
                 "must run in no_grad")
    script.check("y.requires_grad and y.grad_fn is not None",
                 "the output of Probe.apply(x) is not recorded: grad_fn {y.grad_fn}")


@behaviour("FN-5")
@needs("inplace")
@given(data=st.data(), change=st.sampled_from(["add_(1.0)", "mul_(2.0)", "zero_()"]))
def test_a_saved_tensor_modified_in_place_makes_backward_raise(engine, data, change):
    """Cube saves its input h = x * 1; changing h in place after the call makes backward raise,
    while backward from an untouched copy reads ctx.saved_tensors and gives 3 x^2."""
    dtype, x = _case(engine, data)
    script = Script(engine)
    script.run(CUBE, _leaf("x", x, dtype), "h = x * 1.0", "y = Cube.apply(h)")
    with script.control():
        script.run("Cube.apply(x * 1.0).sum().backward()")
        script.check_close("x.grad", 3 * x * x, dtype=dtype, oracle="3 x^2 from the saved x")
    script.run(f"h.{change}")
    script.raises("y.sum().backward()")


# Twice, a Function whose forward saves nothing, or calls save_for_backward with no tensor.
SAVES_NOTHING = '''\
class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        {save}
        return x * 2.0

    @staticmethod
    def backward(ctx, g):
        read.append(tuple(ctx.saved_tensors))
        return 2.0 * g'''


@behaviour("FN-5")
@given(data=st.data(), save=st.sampled_from(["pass", "ctx.save_for_backward()"]))
def test_saved_tensors_is_empty_when_nothing_was_saved(engine, data, save):
    """A Function that saved nothing reads ctx.saved_tensors in backward as an empty tuple, and
    gives its gradient."""
    dtype, x = _case(engine, data)
    script = Script(engine)
    script.run("read = []", SAVES_NOTHING.format(save=save), _leaf("x", x, dtype),
               "Double.apply(x).sum().backward()")
    script.check_equal("read", [()], why="backward read ctx.saved_tensors once, and nothing "
                       "was saved")
    script.check_close("x.grad", np.full_like(x, 2.0), dtype=dtype, oracle="2 from Double")


@behaviour("FN-6")
@given(data=st.data())
def test_backward_frees_what_ctx_saved(engine, data):
    """A second backward through Cube raises unless the first kept the graph, when it adds the
    same gradient again."""
    dtype, x = _case(engine, data)
    script = Script(engine)
    script.run(CUBE)
    for retain in (True, False):
        script.run(_leaf("x", x, dtype), "y = Cube.apply(x).sum()",
                   f"y.backward(retain_graph={retain})")
        if retain:
            with script.control():
                script.run("y.backward()")
                script.check_close("x.grad", 2 * 3 * x * x, dtype=dtype,
                                   oracle="2 passes of 3 x^2")
        else:
            script.raises("y.backward()")


# Each argument's factor in Weighted's sum, distinct, so that a gradient handed to another
# argument shows.
INPUT_FACTORS = (2.0, -3.0, 0.5, 4.0)


@behaviour("FN-7", "FN-4", "FN-10")
@given(data=st.data(), count=counts(FUNCTION_INPUTS))
def test_needs_input_grad_has_a_flag_per_argument(engine, data, count):
    """Weighted(a_0, ..., a_n) = sum of f_i a_i, of one to four arguments: needs_input_grad is
    True exactly for the tensor arguments that require grad, a number's flag is False (FN-7);
    backward returns f_i g for each argument whose flag is True and None for the others, and each
    of those gradients reaches its own argument (FN-4), while a tensor given None keeps .grad
    None (FN-10). An argument may be a_0 again: each position keeps its own flag and gradient,
    and a_0 gets the sum of its positions' gradients."""
    kinds = ["requires", "plain", "number"]
    drawn = data.draw(st.tuples(st.sampled_from(kinds), st.lists(
        st.sampled_from(kinds + ["again"]), min_size=count - 1, max_size=count - 1)),
        label="arguments")
    again = [False] + [flag == "again" for flag in drawn[1]]
    flags = [drawn[0] if repeated else flag for flag, repeated in zip([drawn[0], *drawn[1]], again)]
    dtype = data.draw(float_dtypes(engine), label="dtype")
    names = ["a0" if repeated else f"a{i}" for i, repeated in enumerate(again)]
    factors = INPUT_FACTORS[:count]
    script = Script(engine, behaviour="FN-7")
    script.run("seen = []",
               "class Weighted(torch.autograd.Function):",
               "    @staticmethod",
               f"    def forward(ctx, {', '.join(f'p{i}' for i in range(count))}):",
               "        seen.append(tuple(ctx.needs_input_grad))",
               "        return " + " + ".join(f"p{i} * {f}" for i, f in enumerate(factors))
               + f" + torch.zeros(2, dtype=torch.{dtype})",
               "    @staticmethod",
               "    def backward(ctx, g):",
               f"        return tuple(g * f if needs else None for f, needs in "
               f"zip({factors}, ctx.needs_input_grad))")
    for name, flag, repeated in zip(names, flags, again):
        if not repeated:
            script.run(f"{name} = 1.5" if flag == "number" else
                       _leaf(name, np.ones(2), dtype, requires_grad=flag == "requires"))
    expected = tuple(flag == "requires" for flag in flags)
    script.run(f"y = Weighted.apply({', '.join(names)})")
    script.check_equal("seen", [expected], why="the arguments that require grad")
    if "requires" in flags:
        script.run("y.sum().backward()")
    for name, flag, repeated in zip(names, flags, again):
        if repeated:
            continue
        if flag == "requires":
            factor = sum(f for f, other in zip(factors, names) if other == name)
            script.check_close(f"{name}.grad", np.full(2, factor), dtype=dtype, behaviour="FN-4",
                               oracle=f"the factors of {name}'s positions, {factor}")
        elif flag == "plain":
            script.check_equal(f"{name}.grad", None, behaviour="FN-10",
                               why=f"backward returned None for {name}")


TWO_OUTPUTS = '''\
class Split(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        {setup}
        return x * 2.0, x * 3.0

    @staticmethod
    def backward(ctx, g_double, g_triple):
        received.append((g_double is None, g_triple is None))
        if g_triple is None:
            return g_double * 2.0
        if g_double is None:
            return g_triple * 3.0
        return g_double * 2.0 + g_triple * 3.0'''


@behaviour("FN-9", "FN-1")
@given(data=st.data(), materialize=st.booleans(),
       used=st.sampled_from(["first", "second", "both", "first twice"]))
def test_outputs_no_gradient_reached_get_zeros_or_none(engine, data, materialize, used):
    """Of Split's outputs (2x, 3x), which share one node (FN-1), backward from some: the others'
    gradients arrive as zeros, or as None after set_materialize_grads(False) (FN-9). An output
    used twice receives the sum of both uses' gradients."""
    dtype, x = _case(engine, data)
    setup = "pass" if materialize else "ctx.set_materialize_grads(False)"
    loss = {"first": "double.sum()", "second": "triple.sum()",
            "both": "(double + triple).sum()", "first twice": "(double + double * 2.0).sum()"}[used]
    script = Script(engine, behaviour="FN-9")
    script.run("received = []", TWO_OUTPUTS.format(setup=setup), _leaf("x", x, dtype),
               "double, triple = Split.apply(x)")
    script.check("double.grad_fn is not None and double.grad_fn is triple.grad_fn",
                 "Split's outputs have grad_fn {double.grad_fn} and {triple.grad_fn}: one node",
                 behaviour="FN-1")
    script.run(f"{loss}.backward()")
    missing = (used == "second" and not materialize,
               used in ("first", "first twice") and not materialize)
    script.check_equal("received", [missing],
                       why="whether backward receives None for the (first, second) output")
    factor = {"first": 2.0, "second": 3.0, "both": 5.0, "first twice": 6.0}[used]
    script.check_close("x.grad", np.full(x.shape, factor), dtype=dtype,
                       oracle=f"{factor}: the used outputs' factors")


# A Function with `count` outputs, factor * x for each factor of FACTORS[:count], whose backward
# notes the gradient each output received (None where none arrived, without materializing).
FACTORS = (2.0, 3.0, 4.0, 5.0)
# The outputs' weights in the loss, distinct, so that gradients handed to the wrong output show.
WEIGHTS = (1.0, -2.0, 0.5, 4.0)
MULTIPLES = '''\
class Multiples(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        {setup}
        return tuple(x * factor for factor in {factors})

    @staticmethod
    def backward(ctx, *grads):
        received.append([None if g is None else to_numpy(g).tolist() for g in grads])
        return sum(g * factor for g, factor in zip(grads, {factors}) if g is not None)'''


def _multiples(engine, data, setup="pass"):
    """A script with x, the one to four outputs o0, o1, ... of Multiples.apply(x), and the loss,
    a weighted sum of some of them (at least one): x, and a weight per output, None for one
    left out of the loss."""
    dtype, x = _case(engine, data)
    count = data.draw(counts(FUNCTION_OUTPUTS), label="outputs")
    unused = data.draw(st.sets(st.integers(0, count - 1), max_size=count - 1), label="unused")
    weights = [None if i in unused else w for i, w in enumerate(
        data.draw(st.permutations(WEIGHTS), label="weights")[:count])]
    script = Script(engine)
    outputs = ", ".join(f"o{i}" for i in range(count))
    script.run("received = []", MULTIPLES.format(setup=setup, factors=FACTORS[:count]),
               _leaf("x", x, dtype), f"{outputs}, = Multiples.apply(x)",
               "loss = (" + " + ".join(f"o{i} * {w}" for i, w in enumerate(weights)
                                       if w is not None) + ").sum()")
    return script, dtype, x, weights


@behaviour("FN-4", "FN-9")
@given(data=st.data(), materialize=st.booleans())
def test_each_output_gets_its_own_gradient(engine, data, materialize):
    """Multiples gives 2x, 3x, 4x, 5x, one to four of them; with distinct weights w_i on the
    outputs in the loss, backward receives w_i for output i (FN-4), and zeros for an output left
    out, or None after set_materialize_grads(False) (FN-9); x's gradient is the sum of w_i times
    factor i."""
    setup = "pass" if materialize else "ctx.set_materialize_grads(False)"
    script, dtype, x, weights = _multiples(engine, data, setup)
    script.run("loss.backward()")
    missing = np.zeros(x.shape).tolist() if materialize else None
    script.check_equal("received", [[missing if w is None else np.full(x.shape, w).tolist()
                                     for w in weights]],
                       why="each output's weight, and for one left out "
                       f"{'zeros' if materialize else 'None'}")
    expected = sum(w * factor for w, factor in zip(weights, FACTORS) if w is not None)
    script.check_close("x.grad", np.full(x.shape, expected), dtype=dtype,
                       oracle="the sum of each output's weight times its factor")


@behaviour("FN-4")
@needs("autograd_grad")
@given(data=st.data())
def test_autograd_grad_takes_one_output_s_gradient(engine, data):
    """autograd.grad of the weighted sum with respect to one output of Multiples in the loss
    gives that output's weight, not the other outputs'."""
    script, dtype, x, weights = _multiples(engine, data)
    index = data.draw(st.sampled_from([i for i, w in enumerate(weights) if w is not None]),
                      label="output")
    script.run(f"(g,) = torch.autograd.grad(loss, [o{index}])")
    script.check_close("g", np.full(x.shape, weights[index]), dtype=dtype,
                       oracle=f"output {index}'s weight")


@behaviour("FN-4", "FN-9")
@given(data=st.data(), used=st.sampled_from(["first", "second", "sum", "first and sum"]))
def test_a_tensor_returned_twice_is_one_output_at_its_last_position(engine, data, used):
    """forward returns y = 2x twice, then s = 3 x.sum(): apply gives y twice, one object, whose
    gradient backward receives at its last position (the first gets zeros), and zeros of s's
    shape where s is unused."""
    dtype, x = _case(engine, data, wide=True)
    loss = {"first": "p.sum()", "second": "q.sum()", "sum": "s",
            "first and sum": "p.sum() + s * 4.0"}[used]
    g_y = 0.0 if used == "sum" else 1.0
    g_s = {"sum": 1.0, "first and sum": 4.0}.get(used, 0.0)
    script = Script(engine, behaviour="FN-4")
    script.run("received = []",
               "class Twice(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, x):",
               "        y = x * 2.0",
               "        return y, y, x.sum() * 3.0",
               "    @staticmethod",
               "    def backward(ctx, g_first, g_second, g_sum):",
               "        received.append([to_numpy(g).tolist()",
               "                         for g in (g_first, g_second, g_sum)])",
               "        return (g_first + g_second) * 2.0 + g_sum * 3.0",
               _leaf("x", x, dtype), "p, q, s = Twice.apply(x)")
    script.check("p is q", "the tensor forward returned twice came back as two objects")
    script.run(f"({loss}).backward()")
    script.check_equal("received", [[np.zeros(x.shape).tolist(), np.full(x.shape, g_y).tolist(),
                                     g_s]],
                       why="y's gradient at its last position, zeros at its first and for an "
                       "unused s")
    script.check_close("x.grad", np.full(x.shape, 2.0 * g_y + 3.0 * g_s), dtype=dtype,
                       oracle="2 per use of y and 3 per use of s")


@behaviour("FN-1")
@given(data=st.data())
def test_an_argument_returned_unchanged_comes_back_as_a_new_output(engine, data):
    """forward returns its argument x as it is: apply gives a new tensor whose grad_fn is the
    Function's node, x stays a leaf, and x's gradient is what backward returns."""
    dtype, x = _case(engine, data)
    script = Script(engine)
    script.run("class Identity(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, x):",
               "        return x",
               "    @staticmethod",
               "    def backward(ctx, g):",
               "        return g * 2.0",
               _leaf("x", x, dtype), "y = Identity.apply(x)")
    script.check("y is not x and not y.is_leaf and y.grad_fn is not None",
                 "apply returned x itself or a leaf: y is x is {y is x}, y.grad_fn is {y.grad_fn}")
    script.check("x.is_leaf and x.grad_fn is None",
                 "x became a non-leaf with grad_fn {x.grad_fn} by being returned from forward")
    script.run("y.sum().backward()")
    script.check_close("x.grad", np.full(x.shape, 2.0), dtype=dtype, oracle="what backward returned")


@behaviour("FN-8")
@given(data=st.data(), also_zeros=st.booleans())
def test_non_differentiable_outputs_do_not_require_grad(engine, data, also_zeros):
    """An output marked non-differentiable (or each of two marked in one call) does not require
    grad; backward from the other output still receives a (zero) gradient for it."""
    dtype, x = _case(engine, data)
    marked = "count, zeros" if also_zeros else "count"
    script = Script(engine)
    script.run("received = []",
               "class WithCount(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, x):",
               "        count = (x * 0.0 + 1.0).sum()",
               "        zeros = x * 0.0",
               f"        ctx.mark_non_differentiable({marked})",
               f"        return x * 2.0, {marked}",
               "    @staticmethod",
               "    def backward(ctx, g, g_count, *rest):",
               "        received.append(None if g_count is None else to_numpy(g_count).tolist())",
               "        return g * 2.0",
               _leaf("x", x, dtype), f"double, {marked} = WithCount.apply(x)")
    for name in marked.split(", "):
        script.check(f"not {name}.requires_grad and {name}.grad_fn is None",
                     f"the non-differentiable output {name} has requires_grad="
                     f"{{{name}.requires_grad}}, grad_fn={{{name}.grad_fn}}")
    script.check("double.requires_grad", "the other output does not require grad")
    script.run("double.sum().backward()")
    script.check("received == [0.0]",
                 "backward received {received} for the non-differentiable output, expected a "
                 "zero gradient")
    script.check_close("x.grad", np.full(x.shape, 2.0), dtype=dtype, oracle="2")


@behaviour("FN-10")
@given(data=st.data(), trailing=st.integers(0, 2), number=st.booleans(), none_for_a=st.booleans())
def test_none_gradients_leave_grad_none(engine, data, trailing, number, none_for_a):
    """backward returns None for one argument, a gradient for the other and, if there is one,
    None for a number argument, then `trailing` extra Nones: the leaf given None keeps .grad None."""
    dtype, x = _case(engine, data)
    extra = ", None" * trailing
    k, k_grad = (", k", ", None") if number else ("", "")
    grads, kept, got = (("None, g * 2.0", "a", "b") if none_for_a else
                        ("g * 2.0, None", "b", "a"))
    script = Script(engine)
    script.run("class Product(torch.autograd.Function):",
               "    @staticmethod",
               f"    def forward(ctx, a, b{k}):",
               "        return a * b * 2.0",
               "    @staticmethod",
               "    def backward(ctx, g):",
               f"        return {grads}{k_grad}{extra}",
               _leaf("a", x, dtype), _leaf("b", x, dtype),
               f"Product.apply(a, b{', 2.0' if number else ''}).sum().backward()")
    script.check_equal(f"{kept}.grad", None, why=f"backward returned None for {kept}")
    script.check_close(f"{got}.grad", np.full(x.shape, 2.0), dtype=dtype,
                       oracle="what backward returned")


def _adding(gradients: str) -> str:
    """Add: a + b, whose backward returns `gradients`."""
    return ("class Add(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, a, b):\n"
            "        return a + b\n"
            "    @staticmethod\n"
            "    def backward(ctx, g):\n"
            f"        return {gradients}")


@behaviour("FN-11")
@given(data=st.data(), returned=st.sampled_from(["g", "g, g, g", "g, g, g * 0.0"]))
def test_a_wrong_number_of_gradients_raises(engine, data, returned):
    """For two arguments backward returns one gradient, or three whose last is not None; with
    two, each argument gets its own."""
    dtype, x = _case(engine, data)
    script = Script(engine)
    with script.control():
        script.run(_adding("g, g * 2.0"), _leaf("a", x, dtype), _leaf("b", x, dtype),
                   "Add.apply(a, b).sum().backward()")
        script.check_close("b.grad", np.full(x.shape, 2.0), dtype=dtype,
                           oracle="what backward returned for b")
    script.run(_adding(returned), _leaf("a", x, dtype), _leaf("b", x, dtype))
    script.raises("Add.apply(a, b).sum().backward()")


def _returning(gradient: str) -> str:
    return ("class Double(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, x):\n"
            "        return x * 2.0\n"
            "    @staticmethod\n"
            "    def backward(ctx, g):\n"
            f"        return {gradient}")


@behaviour("FN-12")
@given(data=st.data(), extra=st.integers(1, 2))
def test_a_gradient_of_an_incompatible_shape_raises(engine, data, extra):
    """backward returns a gradient with `extra` more elements in the last dim (of 2 or 3): x's
    shape does not broadcast to it."""
    dtype, x = _case(engine, data, wide=True)
    shape = x.shape[:-1] + (x.shape[-1] + extra,)
    script = Script(engine)
    with script.control():
        script.run(_returning("g * 2.0"), _leaf("x", x, dtype), "Double.apply(x).sum().backward()")
        script.check_close("x.grad", np.full(x.shape, 2.0), dtype=dtype,
                           oracle="what backward returned")
    script.run(_returning(f"torch.ones({', '.join(map(str, shape))}, dtype=torch.{dtype})"),
               _leaf("x", x, dtype))
    script.raises("Double.apply(x).sum().backward()")


@behaviour("FN-13")
@needs("float64", "dtype_conversion")
@given(data=st.data(), lead=st.integers(1, 2), other_dtype=st.booleans())
def test_a_broadcast_gradient_is_summed_and_cast_to_the_argument(engine, data, lead, other_dtype):
    """backward returns 2 g broadcast over `lead` extra leading dims of size 2 (and maybe in the
    other float dtype): the gradient that leaves the Function's node for its argument x, a
    non-leaf h = w * 1.0 whose gradient is retained, is the sum over them, 2 * 2**lead, in x's
    shape and dtype, before any leaf's accumulation could cast it; w gets the same."""
    dtype, x = _case(engine, data)
    other = "float64" if dtype == "float32" else "float32"
    ones = f"torch.ones({', '.join(map(str, (2,) * lead + x.shape))}, dtype=torch.{dtype})"
    gradient = f"(g * 2.0 + {ones} * 0.0){f'.to(torch.{other})' if other_dtype else ''}"
    script = Script(engine)
    script.run(_returning(gradient), _leaf("w", x, dtype), "h = w * 1.0", "h.retain_grad()",
               "Double.apply(h).sum().backward()")
    for name in ("h", "w"):
        script.check(f"{name}.grad is not None and tuple({name}.grad.shape) == {x.shape} "
                     f"and {name}.grad.dtype == torch.{dtype}",
                     f"{name} has shape {x.shape} and dtype {dtype}; its gradient has "
                     f"{{None if {name}.grad is None else (tuple({name}.grad.shape), "
                     f"{name}.grad.dtype)}}")
        script.check_close(f"{name}.grad", np.full(x.shape, 2.0 * 2 ** lead), dtype=dtype,
                           oracle="2 g summed over the leading dims")


@behaviour("FN-14")
@needs("grad_mode")
@given(data=st.data(), how=st.sampled_from(["under no_grad", "on a constant"]))
def test_apply_without_recording_gives_constants(engine, data, how):
    dtype, x = _case(engine, data)
    script = Script(engine)
    script.run(CUBE, _leaf("x", x, dtype, requires_grad=how == "under no_grad"))
    script.run("with torch.no_grad():\n    y = Cube.apply(x)" if how == "under no_grad"
               else "y = Cube.apply(x)")
    script.check("not y.requires_grad and y.grad_fn is None",
                 f"Cube.apply {how} gives a recorded tensor",
                 show=("y.requires_grad", "y.grad_fn"))


@behaviour("FN-15")
@needs("inplace")
@given(data=st.data(), change=st.sampled_from(["h.mul_(2.0)", "h.data.mul_(2.0)"]),
       count=st.integers(1, 2))
def test_mark_dirty_returns_the_modified_argument_as_the_function_s_output(engine, data, change,
                                                                            count):
    """forward doubles each of its `count` arguments h = x * 1 in place and marks them dirty (in
    one call): apply returns each h itself, its version went up (also when the change went
    through h.data, which the counter does not see: marking it dirty is what counts it) and its
    grad_fn is the Function's node, through which x gets 2 per argument; marking a leaf that
    requires grad raises."""
    dtype, x = _case(engine, data)
    names = [f"h{i}" for i in range(count)]
    script = Script(engine)
    script.run("class DoubleInPlace(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, *hs):",
               "        for h in hs:",
               f"            {change}",
               "        ctx.mark_dirty(*hs)",
               "        return hs if len(hs) > 1 else hs[0]",
               "    @staticmethod",
               "    def backward(ctx, *grads):",
               "        return tuple(g * 2.0 for g in grads)",
               _leaf("x", x, dtype), *(f"{h} = x * 1.0" for h in names),
               f"before = [{', '.join(f'{h}._version' for h in names)}]",
               f"ys = DoubleInPlace.apply({', '.join(names)})",
               "ys = ys if isinstance(ys, tuple) else (ys,)")
    with script.control():
        for i, h in enumerate(names):
            script.check(f"ys[{i}] is {h}",
                         f"apply returned a new tensor, not the argument {h} it modified in place")
            script.check(f"{h}._version > before[{i}]",
                         f"{h}'s version did not go up: {{before[{i}]}} -> {{{h}._version}}")
            script.check(f"{h}.grad_fn is not None and "
                         f"'DoubleInPlace' in type({h}.grad_fn).__name__",
                         f"{h}'s grad_fn is {{{h}.grad_fn}}, not DoubleInPlace's node")
        script.run("sum(y.sum() for y in ys).backward()")
        script.check_close("x.grad", np.full(x.shape, 2.0 * count), dtype=dtype,
                           oracle="2 through the node per argument")
    script.raises("DoubleInPlace.apply(x)")


ONCE = '''\
once_differentiable = torch.autograd.function.once_differentiable


class OnceCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        seen.append(torch.is_grad_enabled())
        (x,) = ctx.saved_tensors
        return 3.0 * g * x * x'''


@behaviour("FN-16")
@needs("autograd_grad", "higher_order")
@given(data=st.data())
def test_once_differentiable_cannot_be_differentiated_twice(engine, data):
    """(OnceCube(x) ** 2).sum() under create_graph: the first derivative is 6 x^5, computed with
    grad mode off; differentiating it again raises."""
    dtype, x = _case(engine, data)
    script = Script(engine)
    with script.control():
        script.run("seen = []", ONCE, _leaf("x", x, dtype), "(g,) = torch.autograd.grad("
                   "(OnceCube.apply(x) ** 2).sum(), [x], create_graph=True)")
        script.check("seen == [False]", "once_differentiable ran backward with grad mode {seen}")
        script.check_close("g", 6 * x ** 5, dtype=dtype, oracle="6 x^5")
    script.raises("g.sum().backward()")


# Cube with a first output 2x that the test leaves unused: its gradient arrives as zeros.
DOUBLE_AND_CUBE = '''\
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2.0, x * x * x

    @staticmethod
    def backward(ctx, g_double, g):
        (x,) = ctx.saved_tensors
        return 2.0 * g_double + 3.0 * g * x * x'''


@behaviour("FN-17")
@needs("autograd_grad", "higher_order", "float64")
@given(data=st.data(), double_first=st.booleans())
def test_a_differentiable_backward_gives_second_derivatives(engine, data, double_first):
    """Cube's backward 3 g x^2 is made of differentiable ops: under create_graph the gradient
    3 x^2 has the derivative 6 x, also when the cube is the second output of the Function and
    the first, unused, gets no gradient."""
    _, x = _case(engine, data, dtype="float64")
    script = Script(engine)
    script.run(DOUBLE_AND_CUBE if double_first else CUBE, _leaf("x", x, "float64"),
               f"(g,) = torch.autograd.grad(Cube.apply(x){'[1]' if double_first else ''}.sum(), "
               "[x], create_graph=True)")
    script.check_close("g", 3 * x * x, dtype="float64", oracle="3 x^2")
    script.check("g.requires_grad", "under create_graph the gradient does not require grad")
    script.run("(second,) = torch.autograd.grad(g.sum(), [x])")
    script.check_close("second", 6 * x, dtype="float64", oracle="6 x")


@behaviour("FN-19")
@given(data=st.data(), uses=st.integers(1, 3))
def test_a_function_applied_twice_follows_the_chain_rule(engine, data, uses):
    """Cube(Cube(x)) used `uses` times: x.grad is uses * 9 x^8, and each node's backward runs
    once."""
    dtype, x = _case(engine, data)
    x = np.clip(x, -1.5, 1.5)   # x^9 stays far from float32's limits
    script = Script(engine)
    script.run("calls = []",
               CUBE.replace("(x,) = ctx.saved_tensors", "calls.append(1)\n        (x,) = ctx.saved_tensors"),
               _leaf("x", x, dtype), "y = Cube.apply(Cube.apply(x))",
               f"({' + '.join(['y'] * uses)}).sum().backward()")
    script.check("len(calls) == 2", "the two Cube nodes' backward ran {len(calls)} times")
    script.check_close("x.grad", uses * 9 * x ** 8, dtype=dtype, oracle=f"{uses} x 9 x^8",
                       magnitude=uses * 9 * float(np.max(x ** 8, initial=0.0)))


@behaviour("FN-20")
@control("test_custom_function.py::test_a_function_written_from_an_op_gives_the_op_s_gradients")
@needs("messages")
@given(data=st.data())
def test_messages_for_wrong_gradients(engine, data):
    dtype, x = _case(engine, data, wide=True)
    shape = list(x.shape)
    wrong = shape[:-1] + [shape[-1] + 1]
    script = Script(engine)
    script.run(_returning("g, g"), _leaf("x", x, dtype))
    script.raises("Double.apply(x).sum().backward()",
                  "function DoubleBackward returned an incorrect number of gradients "
                  "(expected 1, got 2)")
    script.run(_returning(f"torch.ones({', '.join(map(str, wrong))}, dtype=torch.{dtype})"))
    script.raises("Double.apply(x).sum().backward()",
                  f"Function DoubleBackward returned an invalid gradient at index 0 - got {wrong} "
                  f"but expected shape compatible with {shape}")


@behaviour("FN-20")
@needs("messages", "inplace")
@given(data=st.data(), saved=st.sampled_from(["y", "x, y", "y, x"]), second=st.booleans())
def test_a_modified_saved_output_is_named_after_the_function(engine, data, saved, second):
    """Cube saves its own output y (and maybe its input x, before or after it); after
    y.mul_(2.0) backward raises, naming y as 'output 0 of Cube' with its versions where y is
    Cube's only output, and as Cube's output where it is the second, after x * 2. Unmodified, y
    gives x its gradient g * y."""
    dtype, x = _case(engine, data)
    apply = f"{'_, ' if second else ''}y = Cube.apply(x)"
    script = Script(engine)
    script.run("class Cube(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, x):",
               "        y = x * x * x",
               f"        ctx.save_for_backward({saved})",
               f"        return {'x * 2.0, y' if second else 'y'}",
               "    @staticmethod",
               f"    def backward(ctx, {'g_double, ' if second else ''}g):",
               f"        y = ctx.saved_tensors[{saved.split(', ').index('y')}]",
               "        return g * y")
    with script.control():
        script.run(_leaf("x", x, dtype), apply, "y.sum().backward()")
        script.check_close("x.grad", x ** 3, dtype=dtype, oracle="g * y, what backward returns")
    script.run(_leaf("x", x, dtype), apply, "y.mul_(2.0)")
    script.raises("y.sum().backward()",
                  f"{'' if second else 'which is output 0 '}of Cube, is at version 1; "
                  "expected version 0 instead")


@behaviour("FN-21")
@needs("graph")
@given(data=st.data(), order=st.permutations(["x", "2.0", "c"]))
def test_edges_go_to_tensor_arguments_in_order(engine, data, order):
    """A Function of a leaf x that requires grad, a number and a constant c: next_functions has
    one edge per tensor argument, in argument order: x's AccumulateGrad, then none for c."""
    dtype, x = _case(engine, data)
    script = Script(engine)
    script.run("class Mix(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, p, q, r):",
               "        return p * q * r",
               "    @staticmethod",
               "    def backward(ctx, g):",
               "        return g, g, g",
               _leaf("x", x, dtype), _leaf("c", x, dtype, requires_grad=False),
               f"edges = Mix.apply({', '.join(order)}).grad_fn.next_functions")
    tensors = [name for name in order if name != "2.0"]
    script.check(f"len(edges) == {len(tensors)}",
                 "next_functions has {len(edges)} edges for 2 tensor arguments")
    for index, name in enumerate(tensors):
        if name == "x":
            script.check(f"edges[{index}][0] is not None and edges[{index}][0].variable is x",
                         f"edge {index} should lead to x's AccumulateGrad",
                         show=(f"edges[{index}]",))
        else:
            script.check(f"edges[{index}][0] is None",
                         f"edge {index}, for the constant c, should be (None, 0)",
                         show=(f"edges[{index}]",))


# -- forward mode: jvp --------------------------------------------------------------------------

FORWARD_AD = "fwAD = torch.autograd.forward_ad"
# F(a, b) = a * b + a * a, whose jvp is ta * b + a * tb + 2 a ta (FN-22).
JVP_FUNCTION = ("class ProductPlusSquare(torch.autograd.Function):",
                "    @staticmethod",
                "    def forward(ctx, a, b):",
                "        ctx.save_for_forward(a, b)",
                "        return a * b + a * a",
                "    @staticmethod",
                "    def jvp(ctx, ta, tb):",
                "        a, b = ctx.saved_tensors",
                "        return ta * b + a * tb + 2.0 * a * ta",
                "    @staticmethod",
                "    def backward(ctx, g):",
                "        raise AssertionError('forward mode ran backward')")


# Saves a and b for jvp, b alone for backward: y = a * b + a * a, whose backward is wrong for a
# (g * b, without 2 a g) on purpose, so that the gradient shows which tensors backward read.
SAVED_APART = ("class SavedApart(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, a, b):",
               "        ctx.save_for_forward(a, b)",
               "        ctx.save_for_backward(b)",
               "        return a * b + a * a",
               "    @staticmethod",
               "    def jvp(ctx, ta, tb):",
               "        a, b = ctx.saved_tensors",
               "        return ta * b + a * tb + 2.0 * a * ta",
               "    @staticmethod",
               "    def backward(ctx, g):",
               "        b = ctx.saved_tensors[0]",
               "        return g * b, None")


@behaviour("FN-22")
@needs("forward_ad")
@given(data=st.data(), w_dual=st.booleans())
def test_jvp_gives_a_function_s_tangent(engine, data, w_dual):
    """y = F(out, w), out the output of a random program one of whose leaves is dual, w dual
    or not: y's tangent is F's jvp of out's tangent J v and w's tangent (zeros if it has none),
    ta * w + out * tw + 2 out ta; F of tensors without tangents gives a tensor without one."""
    program = data.draw(programs(engine, output="any"), label="program")
    dtype, shape = program.dtype, program.output_shape()
    used = program.ancestors()
    dual = data.draw(st.sampled_from([leaf for leaf in program.leaves if leaf.name in used]),
                     label="dual leaf")
    v = data.draw(values(dual.values.shape, dtype, 2.0), label="tangent of the leaf")
    w = data.draw(values(shape, dtype), label="w")
    tw = data.draw(values(shape, dtype, 2.0), label="tangent of w") if w_dual else np.zeros(shape)
    ta, magnitude = analytic_jacobian(program, [dual.name]).times({dual.name: v})
    o = program.evaluate()[program.output].astype(np.float64)
    expected = ta * w + o * tw + 2 * o * ta
    magnitude = (magnitude * (np.abs(w).max(initial=0) + 2 * np.abs(o).max(initial=0))
                 + np.abs(o).max(initial=0) * np.abs(tw).max(initial=0))
    lines = program.script_lines()
    w_line = (f"fwAD.make_dual({tensor_literal(w, dtype)}, {tensor_literal(tw, dtype)})" if w_dual
              else tensor_literal(w, dtype))
    script = Script(engine)
    script.run(FORWARD_AD, *JVP_FUNCTION, *lines[:len(program.leaves)])
    script.run("with fwAD.dual_level():",
               f"    {dual.name} = fwAD.make_dual({dual.name}, {tensor_literal(v, dtype)})",
               *(f"    {line}" for line in lines[len(program.leaves):]),
               f"    w = {w_line}",
               "    tangent = fwAD.unpack_dual(ProductPlusSquare.apply(out, w)).tangent",
               f"    c = {tensor_literal(o, dtype)}",
               "    untouched = fwAD.unpack_dual(ProductPlusSquare.apply(c, c)).tangent")
    script.check("tangent is not None", "F of a dual tensor has no tangent")
    script.check_close("tangent", expected, dtype=dtype, magnitude=magnitude,
                       oracle="F's jvp of J v (analytic)")
    script.check("untouched is None", "F of tensors without tangents has a tangent")


@behaviour("FN-22")
@needs("forward_ad")
@given(data=st.data())
def test_jvp_and_backward_each_read_what_was_saved_for_them(engine, data):
    """F saves (a, b) for forward and (b,) alone for backward: inside a dual level with x dual
    and requiring grad, y = F(x, w) has the tangent jvp computes from what save_for_forward kept,
    and y.backward(g) in the same level gives x the gradient backward computes from what
    save_for_backward kept, g * b: neither reads the other's."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    shape = data.draw(shapes(), label="shape")
    x, w, v, g = (data.draw(values(shape, dtype, 2.0), label=name) for name in "xwvg")
    script = Script(engine)
    script.run(FORWARD_AD, *SAVED_APART, f"x = {tensor_literal(x, dtype, requires_grad=True)}",
               f"w = {tensor_literal(w, dtype)}",
               "with fwAD.dual_level():",
               f"    y = SavedApart.apply(fwAD.make_dual(x, {tensor_literal(v, dtype)}), w)",
               "    tangent = fwAD.unpack_dual(y).tangent",
               f"    y.backward({tensor_literal(g, dtype)})")
    x64, w64, v64 = (array.astype(np.float64) for array in (x, w, v))
    script.check_close("tangent", v64 * w64 + 2 * x64 * v64, dtype=dtype,
                       magnitude=float(np.abs(v64).max(initial=0) * (np.abs(w64).max(initial=0)
                                       + 2 * np.abs(x64).max(initial=0))),
                       oracle="jvp from the tensors saved for forward")
    script.check_close("x.grad", g.astype(np.float64) * w64, dtype=dtype,
                       oracle="backward from the tensor saved for backward")


@behaviour("FN-22")
@needs("forward_ad")
@given(data=st.data(), factor=st.sampled_from([2.0, -0.5, 3.0]))
def test_what_jvp_read_is_not_kept_after_apply(engine, data, factor):
    """Scale(x) saves for forward only t = factor * x, a tensor that forward made, and its jvp
    reads it: once apply has returned, ctx no longer holds t, so t is freed (a weak reference to it
    dies) while the output, which requires grad, keeps its grad_fn; the tangent is factor * v."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    shape = data.draw(shapes(), label="shape")
    x, v = (data.draw(values(shape, dtype, 2.0), label=name) for name in "xv")
    script = Script(engine)
    script.run(FORWARD_AD, "import gc, weakref", "made = []",
               "class Scale(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, x):",
               f"        t = x * {factor!r}",
               "        made.append(weakref.ref(t))",
               "        ctx.save_for_forward(t)",
               f"        return x * {factor!r}",
               "    @staticmethod",
               "    def jvp(ctx, v):",
               "        (t,) = ctx.saved_tensors",
               f"        return v * (t * 0.0 + {factor!r})",
               "    @staticmethod",
               "    def backward(ctx, g):",
               f"        return g * {factor!r}",
               f"x = {tensor_literal(x, dtype, requires_grad=True)}",
               "with fwAD.dual_level():",
               f"    y = Scale.apply(fwAD.make_dual(x, {tensor_literal(v, dtype)}))",
               "    tangent = fwAD.unpack_dual(y).tangent",
               "gc.collect()")
    script.check("y.grad_fn is not None", "Scale's output does not keep its node")
    script.check("made[0]() is None",
                 "the tensor saved for forward outlives apply: ctx still holds it")
    script.check_close("tangent", factor * v.astype(np.float64), dtype=dtype,
                       oracle=f"{factor} v, by the jvp that read t")


# The tangent factor of each argument of Combine, and (times j + 1) of its output j.
COMBINE = '''\
class Combine(torch.autograd.Function):
    @staticmethod
    def forward(ctx, *args):
        ctx.save_for_backward(args[0])
        total = sum(a * f for a, f in zip(args, {factors}))
        return tuple(total * (j + 1.0) for j in range({outputs}))

    @staticmethod
    def jvp(ctx, *tangents):
        seen.append(len(ctx.saved_tensors))
        total = sum(t * f for t, f in zip(tangents, {factors}))
        return tuple(total * (j + 1.0) for j in range({outputs}))

    @staticmethod
    def backward(ctx, *grads):
        raise AssertionError('forward mode ran backward')'''


@behaviour("FN-22")
@needs("forward_ad")
@given(data=st.data(), count=counts(FUNCTION_INPUTS), outputs=counts(FUNCTION_OUTPUTS))
def test_jvp_gets_each_argument_s_tangent_and_gives_each_output_its_own(engine, data, count,
                                                                       outputs):
    """Combine(a_0, ..., a_n) returns (j + 1) sum f_i a_i for each of its one to four outputs j;
    each argument is dual, plain or a_0 again: jvp gets one tangent per position (zeros for a
    plain one, a_0's again for a repeat) and output j gets the j-th tangent it returns. jvp sees
    nothing in ctx.saved_tensors, as forward saved for backward only; without a dual argument
    it does not run and no output has a tangent."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    shape = data.draw(shapes(), label="shape")
    kinds = data.draw(st.tuples(st.sampled_from(["dual", "plain"]), st.lists(
        st.sampled_from(["dual", "plain", "again"]), min_size=count - 1, max_size=count - 1)),
        label="arguments")
    kinds = [kinds[0], *kinds[1]]
    factors = INPUT_FACTORS[:count]
    tangents, body = [], []
    for i, kind in enumerate(kinds):
        if kind == "again":
            tangents.append(tangents[0])
            continue
        a = data.draw(values(shape, dtype, 2.0), label=f"a{i}")
        t = data.draw(values(shape, dtype, 2.0), label=f"tangent of a{i}")
        tangents.append(t.astype(np.float64) if kind == "dual" else np.zeros(shape))
        primal = tensor_literal(a, dtype)
        body.append(f"    a{i} = " + (f"fwAD.make_dual({primal}, {tensor_literal(t, dtype)})"
                                      if kind == "dual" else primal))
    names = ", ".join("a0" if kind == "again" else f"a{i}" for i, kind in enumerate(kinds))
    script = Script(engine)
    script.run(FORWARD_AD, "seen = []", COMBINE.format(factors=factors, outputs=outputs),
               "with fwAD.dual_level():", *body, f"    outs = Combine.apply({names})",
               "    tangents = [fwAD.unpack_dual(o).tangent for o in outs]")
    dual = "dual" in kinds
    script.check_equal("seen", [0] if dual else [],
                       why="jvp runs once where an argument is dual and sees no tensor saved "
                       "for forward")
    total = sum(f * t for f, t in zip(factors, tangents))
    magnitude = sum(abs(f) * float(np.abs(t).max(initial=0)) for f, t in zip(factors, tangents))
    for j in range(outputs):
        if dual:
            script.check_close(f"tangents[{j}]", (j + 1) * total, dtype=dtype,
                               magnitude=(j + 1) * magnitude,
                               oracle=f"{j + 1} x the sum of f_i times each position's tangent")
        else:
            script.check_equal(f"tangents[{j}]", None, why="no argument is dual")


@behaviour("FN-20")
@control("test_custom_function.py::test_jvp_gets_each_argument_s_tangent_and_gives_each_output_its_own")
@needs("forward_ad", "messages")
@given(data=st.data(), outputs=st.integers(2, 3))
def test_jvp_s_wrongly_shaped_tangents_are_named_in_output_order(engine, data, outputs):
    """Spread(x) returns x (j + 1) for each of its two or three outputs j, and its jvp a tangent
    of another shape (the last dim longer by j + 1) for two or more of them: applying it to a dual
    x raises RuntimeError naming the size of the first output's wrong tangent, as the outputs'
    tangents are set in output order."""
    dtype, x = _case(engine, data, wide=True)
    shape = list(x.shape)
    wrong = sorted(data.draw(st.sets(st.integers(0, outputs - 1), min_size=2), label="wrong outputs"))
    sizes = [shape[:-1] + [shape[-1] + j + 1] if j in wrong else shape for j in range(outputs)]
    returned = ", ".join(f"torch.ones({size}, dtype=torch.{dtype})" for size in sizes)
    script = Script(engine)
    script.run(FORWARD_AD,
               "class Spread(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, x):",
               f"        return tuple(x * (j + 1.0) for j in range({outputs}))",
               "    @staticmethod",
               "    def jvp(ctx, t):",
               f"        return {returned}",
               "    @staticmethod",
               "    def backward(ctx, *grads):",
               "        raise AssertionError('forward mode ran backward')",
               _leaf("x", x, dtype, requires_grad=False))
    script.raises("with fwAD.dual_level():\n    Spread.apply(fwAD.make_dual(x, torch.ones_like(x)))",
                  "Trying to set a forward gradient that has a different size than that of the "
                  f"original Tensor, this is not supported. Tensor is of size {shape} while the "
                  f"given forward gradient is of size {sizes[wrong[0]]}")


@behaviour("FN-24")
@needs("forward_ad", "views")
@pytest.mark.parametrize("returned", ["as it is", "[:1]"])
@given(data=st.data(), jvp=st.sampled_from(["{own}{cut} * 2.0", "{own}{cut}.clone()", "{other}{cut}",
                                            "{other}{cut} * 2.0"]))
def test_a_function_returning_its_argument_needs_a_view_tangent(engine, data, returned, jvp):
    """Pass(a, b) returns one of its arguments (drawn) as it is, or its view [:1]: a jvp that
    returns a tensor that is no view (t * 2, t.clone()) makes apply raise RuntimeError, and so
    does a view of the other argument's tangent; a view t[:] or t[:1] of the returned argument's
    own tangent is the output's tangent."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    size = data.draw(st.integers(1, 4), label="size")
    a, b, ta, tb = (data.draw(values((size,), dtype, 2.0), label=name) for name in ("a", "b", "ta", "tb"))
    name = data.draw(st.sampled_from("ab"), label="argument returned")
    cut = "[:]" if returned == "as it is" else returned
    returns = name if returned == "as it is" else name + cut
    jvp = jvp.format(own=f"t{name}", other="tb" if name == "a" else "ta", cut=cut)
    own = f"t{name}{cut}"
    def define(tangent):
        return ["class Pass(torch.autograd.Function):",
                "    @staticmethod",
                "    def forward(ctx, a, b):",
                f"        return {returns}",
                "    @staticmethod",
                "    def jvp(ctx, ta, tb):",
                f"        return {tangent}"]
    apply = ["with fwAD.dual_level():",
             f"    a = fwAD.make_dual({tensor_literal(a, dtype)}, {tensor_literal(ta, dtype)})",
             f"    b = fwAD.make_dual({tensor_literal(b, dtype)}, {tensor_literal(tb, dtype)})",
             "    tangent = fwAD.unpack_dual(Pass.apply(a, b)).tangent"]
    script = Script(engine)
    script.run(FORWARD_AD, *define(jvp))
    script.raises("\n".join(apply),
                  "A custom Function is returning a view but the jvp is not returning a view of the "
                  "given grad input." if jvp.endswith(cut) and not jvp.startswith(f"t{name}") else
                  "A custom Function's forward is returning a view (or an input as-is) but the jvp is "
                  "not returning a view.")
    with script.control():
        script.run(*define(own), *apply)
        script.check_close("tangent", {"a": ta, "b": tb}[name][:1 if cut == "[:1]" else None], dtype=dtype,
                           oracle=f"{name}'s tangent through {own}")


# Two arguments of Pass(a, b), both made from one tensor x: how each is made, its forward base (a
# dual tensor is a base of its own, a view has its base's) and the tangent jvp gets for it (None:
# it has none, and jvp gets zeros).
_SHARED_BASE = {
    "a dual x and a view of it": (("dual", "dual", "tx"), ("dual[:]", "dual", "tx[:]")),
    "a view of a dual x, then the dual": (("dual[:]", "dual", "tx[:]"), ("dual", "dual", "tx")),
    "a dual x and a dual view of x": (("dual", "dual", "tx"), ("fwAD.make_dual(plain, tv)", "dual view", "tv")),
    "a dual x and a plain view of x": (("dual", "dual", "tx"), ("plain", "x", None)),
    "a plain view of x, then a dual x": (("plain", "x", None), ("dual", "dual", "tx")),
}


@behaviour("FN-24")
@needs("forward_ad", "views")
@given(data=st.data(), arguments=st.sampled_from(sorted(_SHARED_BASE)), returned=st.sampled_from("ab"),
       cut=st.sampled_from(["", "[:1]"]),
       jvp=st.sampled_from(["ta{view}", "tb{view}", "(ta * 2.0){view}", "tb{view} * 2.0"]))
def test_the_tangent_of_a_returned_argument_is_checked_against_the_first_with_its_base(
        engine, data, arguments, returned, cut, jvp):
    """Pass(a, b) of two arguments made from one tensor x returns one of them, as it is or its view
    [:1], and its jvp a view ([:] or [:1]) of a tangent it got or of a new tensor, or no view. The
    argument whose tangent counts is the first with the output's forward base: a dual tensor is a
    base of its own (a dual view of x is not x's), a view of one has its base. Where that argument
    had no tangent, jvp's result is the output's tangent; where it had one, jvp must return a view
    of it (or of its base, where it is a view) or apply raises RuntimeError, naming "the same base
    as the given grad input" where that tangent is a view."""
    dtype = data.draw(float_dtypes(engine), label="dtype")
    size = data.draw(st.integers(2, 4), label="size")
    x, tx, tv = (data.draw(values((size,), dtype, 2.0), label=name) for name in ("x", "tx", "tv"))
    made = dict(zip("ab", _SHARED_BASE[arguments]))
    got = {name: {"tx": tx, "tx[:]": tx, "tv": tv, None: np.zeros_like(x)}[made[name][2]] for name in "ab"}
    counts = next(name for name in "ab" if made[name][1] == made[returned][1])
    tangent = made[counts][2]  # the tangent the output's must be a view of, if any
    jvp = jvp.format(view=cut or "[:]")
    own = f"t{counts}{cut or '[:]'}"
    def define(returns):
        return ["class Pass(torch.autograd.Function):",
                "    @staticmethod",
                "    def forward(a, b):",
                f"        return {returned}{cut}",
                "    @staticmethod",
                "    def setup_context(ctx, inputs, output):",
                "        pass",
                "    @staticmethod",
                "    def jvp(ctx, ta, tb):",
                f"        return {returns}"]
    apply = ["with fwAD.dual_level():",
             f"    x = {tensor_literal(x, dtype)}",
             "    plain = x[:]",
             f"    tx, tv = {tensor_literal(tx, dtype)}, {tensor_literal(tv, dtype)}",
             "    dual = fwAD.make_dual(x, tx)",
             f"    tangent = fwAD.unpack_dual(Pass.apply({made['a'][0]}, {made['b'][0]})).tangent"]
    def root(name):  # the tangent that the argument's tangent is (or is a view of); None: it had none
        return made[name][2] and made[name][2].removesuffix("[:]")
    viewed = jvp[1] if jvp.startswith("t") else None  # whose tangent jvp's result is a view of
    script = Script(engine)
    script.run(FORWARD_AD)
    if tangent is not None and jvp.endswith("* 2.0"):
        script.run(*define(jvp))
        script.raises("\n".join(apply), "A custom Function's forward is returning a view (or an input "
                      "as-is) but the jvp is not returning a view.")
    elif tangent is not None and (viewed is None or root(viewed) != root(counts)):
        script.run(*define(jvp))
        script.raises("\n".join(apply), "A custom Function is returning a view but the jvp is not returning "
                      "a view of " + ("the same base as " if tangent == "tx[:]" else "") + "the given grad input.")
    else:
        own = jvp
    with script.control():
        script.run(*define(own), *apply)
        factor = 2.0 if "2.0" in own else 1.0
        script.check_close("tangent", factor * got["a" if "ta" in own else "b"][:1 if cut else None],
                           dtype=dtype, oracle=f"jvp's {own}")


@behaviour("FN-24")
@needs("views")
@given(data=st.data(), dual=st.booleans())
def test_an_argument_returned_as_it_is_comes_back_as_new_views(engine, data, dual):
    """Echo(x) returns (x, 2 x, x, 3 x), x requiring no grad, plain or (where the engine has
    forward mode) dual with a jvp returning views of its tangent for the first and third: those
    outputs are new tensors, views of x (of x's primal for a dual x), distinct from x and from each
    other, with x's values, and the others are 2 x and 3 x, in that order."""
    dual = dual and engine.has("forward_ad")
    dtype, x = _case(engine, data)
    script = Script(engine)
    script.run(*([FORWARD_AD] if dual else []),
               "class Echo(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, x):",
               "        return x, x * 2.0, x, x * 3.0",
               "    @staticmethod",
               "    def jvp(ctx, t):",
               "        return t[...], t * 2.0, t[...], t * 3.0",
               _leaf("x", x, dtype, requires_grad=False))
    if dual:
        script.run("with fwAD.dual_level():",
                   "    a, b, c, d = Echo.apply(fwAD.make_dual(x, torch.ones_like(x)))")
    else:
        script.run("a, b, c, d = Echo.apply(x)")
    script.check("a is not x and c is not x and a is not c",
                 "an argument returned as it is came back as the argument itself, or twice as one object")
    script.check("a._base is x and c._base is x", "the outputs are not views of x",
                 show=("a._base is x", "c._base is x"))
    for name, factor in (("a", 1.0), ("b", 2.0), ("c", 1.0), ("d", 3.0)):
        script.check_close(name, factor * x.astype(np.float64), dtype=dtype, oracle=f"{factor} x")


@behaviour("FN-24")
@needs("views")
@given(data=st.data(), count=st.integers(2, 3))
def test_arguments_that_require_grad_returned_as_they_are_come_back_as_new_views(engine, data, count):
    """Rotate(x0, .., xn-1), of two or three leaves requiring grad, returns them as they are, each
    one position earlier: every output is a new tensor, a view of the argument it is (that
    argument's values), none of them the argument itself, and all have Rotate's node as grad_fn,
    while the arguments stay leaves."""
    dtype, x = _case(engine, data)
    names = [f"x{k}" for k in range(count)]
    script = Script(engine)
    script.run("class Rotate(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, *args):",
               "        return args[1:] + args[:1]",
               "    @staticmethod",
               "    def backward(ctx, *grads):",
               "        return grads[-1:] + grads[:-1]",
               *(_leaf(name, x * (k + 1.0), dtype) for k, name in enumerate(names)),
               f"outs = Rotate.apply({', '.join(names)})")
    for j in range(count):
        argument = names[(j + 1) % count]
        script.check(f"outs[{j}] is not {argument} and outs[{j}]._base is {argument}",
                     f"output {j}, {argument} returned as it is, is not a new view of {argument}",
                     show=(f"outs[{j}] is {argument}", f"outs[{j}]._base is {argument}"))
        script.check_close(f"outs[{j}]", ((j + 1) % count + 1.0) * x.astype(np.float64), dtype=dtype,
                           oracle=f"{argument}'s values")
    script.check("all(o.grad_fn is outs[0].grad_fn for o in outs) and outs[0].grad_fn is not None",
                 "the outputs do not share Rotate's node")
    script.check(" and ".join(f"{name}.is_leaf" for name in names), "an argument stopped being a leaf")


@behaviour("FN-15", "FN-24")
@needs("inplace", "views")
@given(data=st.data())
def test_dirty_arguments_come_back_as_themselves_and_a_plain_one_as_a_view(engine, data):
    """DoubleTwo(x, y, z), none requiring grad, doubles x and z in place, marks them dirty and
    returns (x, y, z): x and z come back as the same objects, doubled, and y, returned as it is,
    as a new view of y."""
    dtype, x = _case(engine, data)
    script = Script(engine)
    script.run("class DoubleTwo(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, x, y, z):",
               "        x.mul_(2.0)",
               "        z.mul_(2.0)",
               "        ctx.mark_dirty(x, z)",
               "        return x, y, z",
               *(_leaf(name, x, dtype, requires_grad=False) for name in "xyz"),
               "a, b, c = DoubleTwo.apply(x, y, z)")
    script.check("a is x and c is z", "a dirty argument did not come back as itself")
    script.check("b is not y and b._base is y", "the argument returned as it is is not a new view of it")
    for name in "ac":
        script.check_close(name, 2.0 * x.astype(np.float64), dtype=dtype, oracle="doubled in place")


@behaviour("FN-24")
@needs("forward_ad", "inplace")
@given(data=st.data(), count=st.integers(1, 2))
def test_dirty_arguments_need_no_view_tangent(engine, data, count):
    """Double(x) or Double(x, z) of dual tensors doubles each in place and marks them dirty, and
    its jvp doubles their tangents in place: the outputs are the arguments themselves, their
    tangents doubled, and no view is asked of a dirty argument's tangent."""
    dtype, x = _case(engine, data)
    v = data.draw(values(x.shape, dtype, 2.0), label="tangent")
    names = "xz"[:count]
    script = Script(engine)
    script.run(FORWARD_AD,
               "class Double(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, *args):",
               "        for a in args:",
               "            a.mul_(2.0)",
               "        ctx.mark_dirty(*args)",
               "        return args",
               "    @staticmethod",
               "    def jvp(ctx, *tangents):",
               "        return tuple(t.mul_(2.0) for t in tangents)",
               "with fwAD.dual_level():",
               *(f"    {name} = fwAD.make_dual({tensor_literal(x, dtype)}, {tensor_literal(v, dtype)})"
                 for name in names),
               f"    outs = Double.apply({', '.join(names)})",
               f"    same = all(o is a for o, a in zip(outs, ({', '.join(names)},)))",
               "    tangents = [fwAD.unpack_dual(t).tangent for t in outs]")
    script.check("same", "a dirty argument did not come back as itself")
    for i in range(count):
        script.check_close(f"tangents[{i}]", 2.0 * v.astype(np.float64), dtype=dtype,
                           oracle="the tangent doubled in place")


@behaviour("FN-23")
@control("test_custom_function.py::test_jvp_gives_a_function_s_tangent")
@needs("forward_ad")
@given(data=st.data(), dual=st.sampled_from(["a", "b", "a, b"]))
def test_a_function_without_jvp_raises_once_forward_ran(engine, data, dual):
    """A Function without jvp, of one or two dual arguments: forward runs, then apply raises
    NotImplementedError."""
    dtype, x = _case(engine, data)
    script = Script(engine)
    script.run(FORWARD_AD, "seen = []",
               "class Product(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, a, b):",
               "        seen.append(1)",
               "        return a * b",
               "    @staticmethod",
               "    def backward(ctx, g):",
               "        return g, g",
               f"a = b = {tensor_literal(x, dtype)}")
    script.raises("\n".join(["with fwAD.dual_level():",
                             *(f"    {name} = fwAD.make_dual({name}, torch.ones_like({name}))"
                               for name in dual.split(", ")),
                             "    Product.apply(a, b)"]), error="NotImplementedError")
    script.check_equal("seen", [1], why="forward runs before the missing jvp raises")


@behaviour("FN-23")
@control("test_custom_function.py::test_jvp_gives_a_function_s_tangent")
@needs("forward_ad")
@given(data=st.data())
def test_a_function_without_jvp_refuses_tangents(engine, data):
    """A random program with one recorded node computed by a Function that has no jvp, every leaf
    dual: applying the Function, inside the dual level, raises NotImplementedError."""
    program, node = _program_with_a_function(engine, data)
    tangents = {leaf.name: data.draw(values(leaf.values.shape, program.dtype, 2.0),
                                     label=f"tangent of {leaf.name}") for leaf in program.leaves}
    shapes_by_name = {name: value.shape for name, value in program.evaluate().items()}
    call = f"{node.name} = Op_{node.name}.apply({', '.join(node.args)})"
    lines = program.script_lines(wrap=lambda name, line: [call] if name == node.name else [line])
    before = lines[len(program.leaves):lines.index(call)]
    script = Script(engine)
    script.run(FORWARD_AD, _function_class(node, shapes_by_name, program.dtype),
               *lines[:len(program.leaves)])
    body = [f"{name} = fwAD.make_dual({name}, {tensor_literal(t, program.dtype)})"
            for name, t in tangents.items()] + before + [call]
    script.raises("\n".join(["with fwAD.dual_level():", *(f"    {line}" for line in body)]),
                  error="NotImplementedError")
