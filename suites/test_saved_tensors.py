"""Saved tensors and the hooks on them: what torch.autograd.graph.saved_tensors_hooks calls, when,
and with what, as the autograd note's "Hooks for saved tensors" describes (SAV-*)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads
from autograd_conformance.harness.counts import BACKWARD_PASSES, NESTING_DEPTH, SAVES_OF_ONE_TENSOR, counts
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script, literal
from autograd_conformance.harness.strategies import (
    ALL_OPS,
    EXTREMA,
    SHAPING,
    engine_ops,
    float_dtypes,
    full_precision_values,
    op_applications,
    programs,
    shapes,
)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control
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

# Hooks that keep each saved tensor and pack it as its number in `saved`; unpack notes the number
# it gets, so that a check sees which pack each unpack undoes (a number unpacked twice, or never).
NUMBERED = ("saved, unpacked = [], []",
            "def pack(t):",
            "    saved.append(t)",
            "    return len(saved) - 1",
            "def unpack(number):",
            "    unpacked.append(number)",
            "    return saved[number]")


def _one_op_inside_the_hooks(script, program, hooks=RECORDING):
    """The hooks, the program's leaves, then its op run inside the hooks."""
    lines = program.script_lines()
    script.run(*hooks, *lines[:len(program.leaves)])
    script.run("with torch.autograd.graph.saved_tensors_hooks(pack, unpack):",
               *(f"    {line}" for line in lines[len(program.leaves):]))


def _check_passes(script, passes, gradients=None, program=None):
    """`passes` backward passes of out.sum() (all but the last retaining the graph), after the
    NUMBERED hooks: each packs nothing and unpacks every number packed once, with what pack
    returned; with `gradients`, the leaves hold `number` times them after pass `number`."""
    script.run("packed = len(saved)")
    for number in range(1, passes + 1):
        retain = "retain_graph=True" if number < passes else ""
        script.run("unpacked.clear()", f"out.sum().backward({retain})")
        script.check("len(saved) == packed and sorted(unpacked) == list(range(packed))",
                     f"backward pass {number} should unpack each of the {{packed}} numbers pack "
                     "returned once and pack nothing, but it packed {len(saved) - packed} and "
                     "unpacked {sorted(unpacked)}")
        if gradients is not None:
            assert_leaf_grads(script, program, gradients, scale=number,
                              oracle=f"analytic, {number} passes")


@behaviour("SAV-2")
@given(data=st.data(), passes=counts(BACKWARD_PASSES))
def test_pack_at_forward_and_unpack_at_each_backward(engine, data, passes):
    """One op built inside the hooks: pack runs while the op runs, at least once where the op's
    backward needs a value (torch's node saves one); each of one to four backward passes, outside
    the context, packs nothing, unpacks every packed tensor once, with what pack returned (a pass
    after another with retain_graph unpacks them again), and adds the analytic gradients."""
    op = data.draw(st.sampled_from(engine_ops(engine, ALL_OPS + EXTREMA)), label="op")
    program = data.draw(op_applications(engine, op), label="program")
    script = Script(engine)
    _one_op_inside_the_hooks(script, program, NUMBERED)
    script.check("unpacked == []", f"while {op} ran, unpack was called: {{unpacked}}")
    if op in SAVED_COUNT:
        script.check("len(saved) >= 1", f"{op}'s backward needs a value, but pack was not called "
                     "while it ran")
    _check_passes(script, passes, analytic_grads(program), program)


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


def _terms_saving_x(data, saves):
    """Terms of a sum whose nodes save x `saves` times in all: x * x saves it twice in one node,
    x * w once (and w once)."""
    terms = []
    while saves:
        twice = saves >= 2 and data.draw(st.booleans(), label=f"term {len(terms) + 1} is x * x")
        terms.append("x * x" if twice else "x * w")
        saves -= 2 if twice else 1
    return terms


@behaviour("SAV-1", "SAV-2")
@given(data=st.data(), saves=counts(SAVES_OF_ONE_TENSOR))
def test_each_save_of_a_tensor_is_packed_once(engine, data, saves):
    """A sum of x * x (one node saving x twice) and x * w (saving x and w = -x once each) that
    saves x one to three times, built inside the numbering hooks: pack runs once per save, for
    each of x's as for w's (SAV-1); backward unpacks each number once and gives the gradients
    (SAV-2)."""
    dtype, x = data.draw(_leaf(engine), label="leaf")
    terms = _terms_saving_x(data, saves)
    products, w_saves = terms.count("x * x"), terms.count("x * w")
    script = Script(engine, behaviour="SAV-2")
    _define_x(script, dtype, x)
    script.run(f"w = torch.tensor({literal(-x)}, dtype=torch.{dtype}, requires_grad=True)",
               *NUMBERED, "def saves_of(a):",
               "    values = to_numpy(a).tolist()",
               "    return [to_numpy(t).tolist() == values for t in saved].count(True)",
               "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):",
               f"    out = {' + '.join(terms)}")
    script.check(f"(saves_of(x), saves_of(w)) == ({saves}, {w_saves})",
                 f"{' + '.join(terms)} saves x {saves} and w {w_saves} times in torch, but pack "
                 "got x {saves_of(x)} and w {saves_of(w)} times", behaviour="SAV-1")
    _check_passes(script, 1)
    magnitude = (2 * products + w_saves) * float(np.max(np.abs(x)))
    script.check_close("x.grad", (2 * products - w_saves) * x, dtype=dtype, magnitude=magnitude,
                       oracle=f"{2 * products - w_saves} x: 2 x per x * x, w = -x per x * w")
    if w_saves:
        script.check_close("w.grad", w_saves * x, dtype=dtype, magnitude=magnitude,
                           oracle=f"{w_saves} x: x per x * w")


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
@given(data=st.data(), depth=counts(NESTING_DEPTH))
def test_the_innermost_hooks_win(engine, data, depth):
    """One to three nested hook pairs, with y_l = exp(x) built at each level l once the contexts
    inside it have closed: pair l alone packs y_l's saved result, and unpacks it at y_l's
    backward, so that every level, not only the deepest, sees its own pair as the innermost."""
    dtype, x = data.draw(_leaf(engine), label="leaf")
    script = Script(engine)
    _define_x(script, dtype, x)
    script.run("used = []")
    lines = ["    " * level + "with torch.autograd.graph.saved_tensors_hooks("
             f"lambda t: used.append(('pack', {level})) or t, "
             f"lambda t: used.append(('unpack', {level})) or t):" for level in range(depth)]
    lines += ["    " * (level + 1) + f"y{level} = torch.exp(x)" for level in reversed(range(depth))]
    script.run(*lines, *(f"y{level}.sum().backward()" for level in reversed(range(depth))))
    levels = list(reversed(range(depth)))
    script.check_equal("used", [("pack", level) for level in levels] +
                       [("unpack", level) for level in levels],
                       why=f"of {depth} nested hook pairs, pair l alone packs and unpacks the "
                       "result of exp built at level l, innermost first")


@behaviour("SAV-5")
@control("test_saved_tensors.py::test_the_innermost_hooks_win")
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
@given(data=st.data(), saves=counts(SAVES_OF_ONE_TENSOR))
def test_a_function_s_saved_tensors_go_through_the_hooks(engine, data, saves):
    """A Function saving its argument one to three times (save_for_backward(a, a, ...)): pack
    once per save in forward, then, when backward reads ctx.saved_tensors, unpack once for each
    number packed."""
    dtype, x = data.draw(_leaf(engine), label="leaf")
    script = Script(engine)
    _define_x(script, dtype, x)
    script.run(*NUMBERED, "calls = []",
               "class Square(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, a):",
               f"        ctx.save_for_backward({'a, ' * saves})",
               f"        return a * a * {saves / 2}",
               "    @staticmethod",
               "    def backward(ctx, g):",
               "        calls.append(('read', sorted(unpacked)))",
               "        return sum(ctx.saved_tensors) * g",
               "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):",
               "    y = Square.apply(x)",
               "calls.append(('forward', len(saved), list(unpacked)))",
               "y.sum().backward()",
               "calls.append(('backward', len(saved), sorted(unpacked)))")
    script.check_equal("calls", [("forward", saves, []), ("read", []),
                                 ("backward", saves, list(range(saves)))],
                       why=f"Square saved its argument {saves} times: pack {saves} times in "
                       "forward, unpack each number once when backward reads ctx.saved_tensors")
    script.check_close("x.grad", saves * x, dtype=dtype, magnitude=saves * float(np.max(np.abs(x))),
                       oracle=f"{saves} x, the sum of the saved tensors")


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


# A Function that saves a leaf w it is not given (an intermediate save, as the extending note
# allows), and multiplies by it.
SCALED_BY_W = """\
class ScaledByW(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(w)
        return x * w.detach()

    @staticmethod
    def backward(ctx, g):
        (saved_w,) = ctx.saved_tensors
        return g * saved_w"""


@behaviour("SAV-9")
@needs("autograd_grad", "higher_order", "float64", "custom_function")
@given(data=st.data())
def test_an_unpacked_leaf_that_no_edge_reached_keeps_its_place(engine, data):
    """A Function saves a leaf w that no op of the graph uses, inside copying hooks: the
    gradient g = w of sum(ScaledByW(x)) taken with create_graph leads to w itself, so that
    grad(sum(g * c), w) is c."""
    _, x = data.draw(_leaf(engine, dtype="float64"), label="leaf")
    w = data.draw(full_precision_values(np.shape(x), "float64"), label="w")
    c = data.draw(full_precision_values(np.shape(x), "float64"), label="c")
    script = Script(engine)
    _define_x(script, "float64", x)
    script.run(f"w = torch.tensor({literal(w)}, dtype=torch.float64, requires_grad=True)",
               SCALED_BY_W, *RECORDING,
               "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):",
               "    y = ScaledByW.apply(x).sum()",
               "(g,) = torch.autograd.grad(y, [x], create_graph=True)")
    script.check_close("g", w, dtype="float64", oracle="w")
    script.run(f"(second,) = torch.autograd.grad((g * torch.tensor({literal(c)}, "
               "dtype=torch.float64)).sum(), [w])")
    script.check_close("second", c, dtype="float64", oracle="c")


PACK_MODIFIED_MESSAGE = "A saved tensor pack hook is modifying its input in place."


@behaviour("SAV-10", "SAV-11")
@control("test_saved_tensors.py::test_hooks_that_copy_leave_the_gradients_unchanged")
@needs("inplace")
@given(data=st.data(), change=st.sampled_from(["add_(1)", "mul_(2)", "zero_()"]))
def test_a_pack_hook_that_modifies_its_input_in_place_raises(engine, data, change):
    """One op that saves tensors, run inside hooks whose pack changes the tensor it gets in
    place (under no_grad, so that the change itself is allowed; integer changes, as an index
    list's indices are saved too): the op raises RuntimeError, with the message of SAV-11."""
    op = data.draw(st.sampled_from(engine_ops(engine, tuple(sorted(SAVED_COUNT)))), label="op")
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


@behaviour("SAV-12")
@needs("inplace", "saved_tensor_mutation")
@given(data=st.data(), change=st.sampled_from(["add_(1.0)", "mul_(2.0)", "zero_()"]))
def test_a_tensor_saved_twice_may_be_modified_under_allow_mutation(engine, data, change):
    """y = x + 0 saved in both slots of y * y and by a second node, y * x, then modified in place
    inside allow_mutation_on_saved_tensors(): each slot of each node keeps y's old values, so
    x's gradient is that of sum(y * y + y * x) as computed, 4 x."""
    dtype, x = data.draw(_leaf(engine), label="leaf")
    script = Script(engine)
    _define_x(script, dtype, x)
    script.run("with torch.autograd.graph.allow_mutation_on_saved_tensors():",
               "    y = x + 0.0",
               "    out = (y * y + y * x).sum()",
               f"    y.{change}",
               "    out.backward()")
    script.check_close("x.grad", 4 * x, dtype=dtype, magnitude=4 * float(np.max(np.abs(x))),
                       oracle="4 x, with y's values before the change")
