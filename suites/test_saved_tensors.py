"""Saved tensors and the hooks on them: what torch.autograd.graph.saved_tensors_hooks calls, when,
and with what, as the autograd note's "Hooks for saved tensors" describes (SAV-*)."""

import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script, literal
from autograd_conformance.harness.strategies import (ALL_OPS, EXTREMA, SHAPING, engine_ops,
                                                     float_dtypes, full_precision_values,
                                                     op_applications, programs, shapes)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
pytestmark = needs("saved_tensor_hooks")

# How many tensors torch 2.13's node for each op saves when every input requires grad (counted
# with saved_tensors_hooks on torch): inputs (mul, div, matmul...), the result (exp, tanh...), both
# (a tensor power: base, exponent and result), or the indices of a list index.
SAVED_COUNT = {"mul": 2, "div": 2, "pow": 1, "pow_tensor": 3, "rpow": 2, "exp": 1, "log": 1,
               "tanh": 1, "sigmoid": 1, "relu": 1, "sqrt": 1, "abs": 1, "matmul": 2, "mv": 2,
               "dot": 2, "index_list": 1, "amax": 2, "amin": 2, "max": 2, "min": 2,
               "max_dim": 1, "min_dim": 1}

NO_VIEWS = tuple(op for op in ALL_OPS if op not in SHAPING)

# Hooks that record each call in `calls`, and keep a copy of the values outside the graph.
RECORDING = ("calls = []",
             "def pack(t):",
             "    calls.append('pack')",
             "    return to_numpy(t).copy()",
             "def unpack(values):",
             "    calls.append('unpack')",
             "    return torch.tensor(values)")


def _one_op_inside_the_hooks(script, program):
    """The recording hooks, the program's leaves, then its op run inside the hooks."""
    lines = program.script_lines()
    script.run(*RECORDING, *lines[:len(program.leaves)])
    script.run("with torch.autograd.graph.saved_tensors_hooks(pack, unpack):",
               *(f"    {line}" for line in lines[len(program.leaves):]))


@behaviour("SAV-2")
@given(data=st.data(), passes=st.integers(1, 3))
def test_pack_at_forward_and_unpack_at_each_backward(engine, data, passes):
    """One op built inside the hooks: pack runs while the op runs, at least once where the op's
    backward needs a value (torch's node saves one); each backward pass, outside the context,
    packs nothing and unpacks every packed tensor once (a pass after another with retain_graph
    unpacks them again)."""
    op = data.draw(st.sampled_from(engine_ops(engine, ALL_OPS + EXTREMA)), label="op")
    program = data.draw(op_applications(engine, op), label="program")
    script = Script(engine)
    _one_op_inside_the_hooks(script, program)
    script.check("set(calls) <= {'pack'}", f"while {op} ran, unpack was called: {{calls}}")
    if op in SAVED_COUNT:
        script.check("len(calls) >= 1", f"{op}'s backward needs a value, but pack was not called "
                     "while it ran")
    script.run("packed = len(calls)")
    for number in range(1, passes + 1):
        retain = ", retain_graph=True" if number < passes else ""
        script.run("calls.clear()", f"out.sum().backward({retain.lstrip(', ')})")
        script.check("calls == ['unpack'] * packed",
                     f"backward pass {number} should unpack the {{packed}} tensors packed at "
                     "forward once each, and pack nothing: {calls}")


@behaviour("SAV-1")
@given(data=st.data())
def test_pack_is_called_for_each_tensor_torchs_node_saves(engine, data):
    """One op on leaves that all require grad, built inside the hooks: pack runs once per tensor
    torch 2.13's node for that op saves (SAVED_COUNT)."""
    op = data.draw(st.sampled_from(engine_ops(engine, ALL_OPS + EXTREMA)), label="op")
    program = data.draw(op_applications(engine, op), label="program")
    saved = SAVED_COUNT.get(op, 0)
    script = Script(engine)
    _one_op_inside_the_hooks(script, program)
    script.check(f"calls == ['pack'] * {saved}",
                 f"{op} saves {saved} tensors in torch, but pack was not called {saved} times "
                 "while it ran", show=("calls",))


@behaviour("SAV-1")
@given(data=st.data(), requiring=st.sampled_from(["left", "right"]))
def test_mul_saves_only_the_operand_a_gradient_needs(engine, data, requiring):
    """a * b where only one operand requires grad: torch's node saves only the other operand, the
    one that operand's gradient is multiplied by, so pack runs once."""
    dtype, x = data.draw(_leaf(engine), label="leaf")
    constant = data.draw(full_precision_values(x.shape, dtype), label="constant")
    product = "x * c" if requiring == "left" else "c * x"
    script = Script(engine)
    script.run(*RECORDING)
    _define_x(script, dtype, x)
    script.run(f"c = torch.tensor({literal(constant)}, dtype=torch.{dtype})",
               "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):",
               f"    y = {product}")
    script.check("calls == ['pack']", f"{product} with only x requiring grad saves c alone in "
                 "torch, but pack was called {len(calls)} times", show=("calls",))


@behaviour("SAV-2", "SAV-8")
@given(data=st.data())
def test_hooks_that_copy_leave_the_gradients_unchanged(engine, data):
    """A random program built inside hooks that copy each saved tensor out through to_numpy and
    back: backward, outside the context, packs nothing, unpacks with those hooks where the
    output's path saved tensors (SAV-8), and gives the analytic gradients (SAV-2)."""
    program = data.draw(programs(engine), label="program")
    lines = program.script_lines()
    script = Script(engine, behaviour="SAV-2")
    script.run(*RECORDING, *lines[:len(program.leaves)])
    script.run("with torch.autograd.graph.saved_tensors_hooks(pack, unpack):",
               *(f"    {line}" for line in lines[len(program.leaves):]))
    script.run("forward_calls = len(calls)", "out.backward()")
    script.check("'pack' not in calls[forward_calls:]", "backward packed: {calls}")
    if program.saves_tensors():  # a node on the output's path saved tensors: backward reads them
        script.check("'unpack' in calls[forward_calls:]",
                     "backward outside the context unpacked nothing: {calls}", behaviour="SAV-8")
    assert_leaf_grads(script, program, analytic_grads(program), oracle="analytic")


@st.composite
def _leaf(draw, engine, dtype=None):
    """A dtype and a leaf x of moderate values of a random shape."""
    dtype = dtype or draw(float_dtypes(engine), label="dtype")
    shape = draw(shapes(), label="shape")
    return dtype, draw(full_precision_values(shape, dtype), label="x")


def _define_x(script, dtype, x):
    script.run(f"x = torch.tensor({literal(x)}, dtype=torch.{dtype}, requires_grad=True)")


@behaviour("SAV-3")
@given(data=st.data())
def test_backward_computes_with_what_unpack_returns(engine, data):
    """y = x * x saves x twice; an unpack that doubles them makes the gradient 2x + 2x = 4x."""
    dtype, x = data.draw(_leaf(engine), label="leaf")
    script = Script(engine)
    _define_x(script, dtype, x)
    script.run("with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t * 2.0):",
               "    y = x * x",
               "y.sum().backward()")
    script.check_close("x.grad", 4 * x, dtype=dtype, oracle="4 x from doubled saved values")


@behaviour("SAV-4")
@given(data=st.data(), depth=st.integers(2, 3))
def test_the_innermost_hooks_win(engine, data, depth):
    dtype, x = data.draw(_leaf(engine), label="leaf")
    script = Script(engine)
    _define_x(script, dtype, x)
    script.run("used = []")
    lines = []
    for level in range(depth):
        lines.append("    " * level + "with torch.autograd.graph.saved_tensors_hooks("
                     f"lambda t: used.append(('pack', {level})) or t, "
                     f"lambda t: used.append(('unpack', {level})) or t):")
    lines.append("    " * depth + "y = torch.exp(x)")
    script.run(*lines, "y.sum().backward()")
    innermost = depth - 1
    script.check_equal("used", [("pack", innermost), ("unpack", innermost)],
                       why=f"of {depth} nested hook pairs only pair {innermost}, the innermost, "
                       "runs for exp's saved result")


@behaviour("SAV-5")
@given(message=st.sampled_from(["no hooks here", "saved tensors are off-limits"]),
       order=st.sampled_from(["disable first", "hooks first"]))
def test_disabled_hooks_raise_with_the_message(engine, message, order):
    script = Script(engine)
    hooks = "torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)"
    disable = f"torch.autograd.graph.disable_saved_tensors_hooks({message!r})"
    outer, inner = (disable, hooks) if order == "disable first" else (hooks, disable)
    script.raises(f"with {outer}:\n    with {inner}:\n        pass", message)
    script.run(f"with {hooks}:\n    pass  # allowed again once the context is left")


@behaviour("SAV-6")
@given(data=st.data())
def test_save_on_cpu_leaves_the_gradients_unchanged(engine, data):
    program = data.draw(programs(engine), label="program")
    lines = program.script_lines()
    script = Script(engine)
    script.run(*lines[:len(program.leaves)],
               "with torch.autograd.graph.save_on_cpu():",
               *(f"    {line}" for line in lines[len(program.leaves):]),
               "out.backward()")
    assert_leaf_grads(script, program, analytic_grads(program), oracle="analytic")


@behaviour("SAV-7")
@needs("custom_function")
@given(data=st.data())
def test_a_function_s_saved_tensors_go_through_the_hooks(engine, data):
    """A Function saving its argument: pack in forward, unpack when backward reads it."""
    dtype, x = data.draw(_leaf(engine), label="leaf")
    script = Script(engine)
    _define_x(script, dtype, x)
    script.run(*RECORDING,
               "class Square(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, a):",
               "        ctx.save_for_backward(a)",
               "        return a * a",
               "    @staticmethod",
               "    def backward(ctx, g):",
               "        (a,) = ctx.saved_tensors",
               "        calls.append('read')",
               "        return 2.0 * a * g",
               "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):",
               "    y = Square.apply(x)",
               "y.sum().backward()")
    script.check("calls == ['pack', 'unpack', 'read']",
                 "Square's saved argument went through {calls}, expected pack in forward, "
                 "then unpack when backward read ctx.saved_tensors")
    script.check_close("x.grad", 2 * x, dtype=dtype, oracle="2 x")


@behaviour("SAV-8")
@given(data=st.data())
def test_a_graph_built_without_hooks_is_not_packed(engine, data):
    """exp's result saved outside any context: backward inside one packs and unpacks nothing."""
    dtype, x = data.draw(_leaf(engine), label="leaf")
    script = Script(engine)
    _define_x(script, dtype, x)
    script.run(*RECORDING, "y = torch.exp(x).sum()",
               "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):",
               "    y.backward()")
    script.check("calls == []", "a graph saved without hooks went through {calls} at backward")


@behaviour("SAV-9")
@needs("autograd_grad", "higher_order", "float64")
@given(data=st.data())
def test_unpacked_tensors_keep_their_place_in_the_graph(engine, data):
    """(x * x * x).sum() built inside copying hooks: the first derivative 3 x^2 is differentiable
    again (6 x), as without hooks."""
    _, x = data.draw(_leaf(engine, dtype="float64"), label="leaf")
    script = Script(engine)
    _define_x(script, "float64", x)
    script.run(*RECORDING,
               "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):",
               "    y = (x * x * x).sum()",
               "(g,) = torch.autograd.grad(y, [x], create_graph=True)")
    script.check_close("g", 3 * x * x, dtype="float64", oracle="3 x^2")
    script.run("(second,) = torch.autograd.grad(g.sum(), [x])")
    script.check_close("second", 6 * x, dtype="float64", oracle="6 x")


PACK_MODIFIED_MESSAGE = "A saved tensor pack hook is modifying its input in place."


@behaviour("SAV-10", "SAV-11")
@needs("inplace")
@given(data=st.data(), change=st.sampled_from(["add_(1)", "mul_(2)", "zero_()"]))
def test_a_pack_hook_that_modifies_its_input_in_place_raises(engine, data, change):
    """One op that saves tensors, run inside hooks whose pack changes the tensor it gets in
    place (under no_grad, so that the change itself is allowed; integer changes, as an index
    list's indices are saved too): the op raises RuntimeError, with the message of SAV-11."""
    op = data.draw(st.sampled_from(sorted(SAVED_COUNT)), label="op")
    program = data.draw(op_applications(engine, op), label="program")
    lines = program.script_lines()
    script = Script(engine, behaviour="SAV-10")
    script.run("def pack(t):", "    with torch.no_grad():", f"        t.{change}", "    return t",
               "def unpack(t):", "    return t", *lines[:len(program.leaves)])
    forward = "\n".join(["with torch.autograd.graph.saved_tensors_hooks(pack, unpack):",
                         *(f"    {line}" for line in lines[len(program.leaves):])])
    script.raises(forward)
    script.raises(forward, PACK_MODIFIED_MESSAGE, behaviour="SAV-11")


@behaviour("SAV-12")
@needs("inplace", "saved_tensor_mutation")
@given(data=st.data(), change=st.sampled_from(["add_(1.0)", "mul_(2.0)", "zero_()"]))
def test_saved_tensors_may_be_modified_under_allow_mutation(engine, data, change):
    """A random program without views, built inside allow_mutation_on_saved_tensors(), whose
    intermediate results (not the output) are then modified in place there, saved ones among
    them: backward inside the context gives the analytic gradients of the program as computed."""
    def intermediates(program):
        return [node.name for node in program.nodes if node.name != program.output]

    program = data.draw(programs(engine, ops=NO_VIEWS, requires_grad="all", saves_tensors=True,
                                 candidates=intermediates), label="program")
    changed = data.draw(st.lists(st.sampled_from(intermediates(program)), min_size=1, max_size=3),
                        label="changed in place")
    script = Script(engine)
    script.run("with torch.autograd.graph.allow_mutation_on_saved_tensors():",
               *(f"    {line}" for line in program.script_lines()),
               *(f"    {name}.{change}" for name in changed),
               "    out.backward()")
    assert_leaf_grads(script, program, analytic_grads(program), oracle="analytic, before the changes")
