"""autograd.grad returns gradients instead of accumulating them; create_graph makes them
differentiable, whatever the caller's grad mode, and backward(create_graph=True) warns;
backward(inputs=...) restricts accumulation (GRAD-*, HO-*, JAC-2, RETAIN-2, REQ-12, MISC-4,
MISC-14, MODE-8)."""

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_grads_only_where_expected
from autograd_conformance.harness.counts import FUNCTION_INPUTS, FUNCTION_OUTPUTS, counts
from autograd_conformance.harness.oracles import FINITE_DIFFERENCE, analytic_grads, finite_difference_hvp
from autograd_conformance.harness.program import Leaf, Node, Program
from autograd_conformance.harness.script import Script, literal, tensor_literal
from autograd_conformance.harness.strategies import (
    ALL_OPS,
    CURVED_OPS,
    cotangents,
    programs,
    recorded_intermediates,
    recorded_nodes,
    shapes,
    values,
)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control


def _names(leaves) -> str:
    """The leaves as the list literal of the script's inputs: `[x0, x2]`."""
    return f"[{', '.join(leaf.name for leaf in leaves)}]"


def _check_returned(script, program, leaves, expected, oracle="analytic") -> None:
    """The script's `grads`, autograd.grad's results for `leaves`, hold the expected values."""
    __tracebackhide__ = True
    for index, leaf in enumerate(leaves):
        script.check_close(f"grads[{index}]", expected[leaf.name], dtype=program.dtype,
                           oracle=oracle, magnitude=expected.magnitude)


@behaviour("GRAD-1")
@needs("autograd_grad")
@given(data=st.data())
def test_autograd_grad_returns_gradients_without_touching_grad(engine, data):
    """autograd.grad(out, inputs) returns a tuple with one gradient per input, in the order of
    the inputs (one to four leaves in a drawn order; fresh ones feed the output where it has too
    few: Program.fed_by; maybe one of them listed again, which gets its gradient again), the
    analytic ones, and leaves every .grad None."""
    distinct = data.draw(counts(FUNCTION_INPUTS), label="number of inputs")
    program = data.draw(programs(engine), label="program").fed_by(distinct)
    leaves = data.draw(st.lists(st.sampled_from(program.grad_leaves()), min_size=distinct,
                                max_size=distinct, unique_by=lambda leaf: leaf.name),
                       label="inputs")
    if data.draw(st.booleans(), label="a leaf listed twice"):
        again = data.draw(st.sampled_from(leaves), label="listed again")
        leaves.insert(data.draw(st.integers(0, distinct), label="at"), again)
    count = len(leaves)
    event(f"a leaf listed twice: {count > distinct}")
    expected = analytic_grads(program)
    script = Script(engine)
    script.build(program)
    script.run(f"grads = torch.autograd.grad(out, {_names(leaves)})")
    script.check(f"isinstance(grads, tuple) and len(grads) == {count}",
                 f"autograd.grad did not return a tuple of {count} gradients for {count} inputs",
                 show=("type(grads).__name__", "len(grads)"))
    for leaf in program.grad_leaves():
        script.check(f"{leaf.name}.grad is None", f"autograd.grad filled {leaf.name}.grad")
    _check_returned(script, program, leaves, expected)


@behaviour("GRAD-1")
@needs("autograd_grad")
@given(data=st.data())
def test_autograd_grad_equals_backward_into_fresh_leaves(engine, data):
    """The algebraic oracle: what autograd.grad returns is what backward() accumulates into
    leaves whose .grad was None."""
    program = data.draw(programs(engine), label="program")
    leaves = program.grad_leaves()
    magnitude = analytic_grads(program).magnitude   # the scale of their rounding differences
    script = Script(engine)
    script.build(program)
    script.run(f"grads = torch.autograd.grad(out, {_names(leaves)})")
    script.run("# A second run of the program, on fresh leaves: backward() must accumulate what "
               "autograd.grad returned")
    script.build(program)
    script.run("out.backward()")
    for index, leaf in enumerate(leaves):
        script.check(f"grads[{index}] is not None",
                     f"autograd.grad gave None for {leaf.name}, which takes part")
        script.check_agrees(f"{leaf.name}.grad", f"grads[{index}]", dtype=program.dtype,
                            oracle="autograd.grad", magnitude=magnitude)


def _with_an_unused_input(engine, data):
    """A random program built in a script, with `unused`, a leaf that requires grad and that the
    output does not depend on: (script, program, its leaves that get .grad, the inputs list
    `[x0, ..., unused]` as source, their analytic gradients)."""
    program = data.draw(programs(engine), label="program")
    leaves = program.grad_leaves()
    script = Script(engine)
    script.build(program)
    script.run("unused = torch.ones(2, requires_grad=True)")
    inputs = f"[{', '.join(leaf.name for leaf in leaves)}, unused]"
    return script, program, leaves, inputs, analytic_grads(program)


@behaviour("GRAD-2")
@needs("autograd_grad")
@given(data=st.data())
def test_unused_inputs_raise_unless_allowed(engine, data):
    """An input that the output does not depend on makes autograd.grad raise; with
    allow_unused=True its gradient is None and the others are unchanged."""
    script, program, leaves, inputs, expected = _with_an_unused_input(engine, data)
    script.raises(f"torch.autograd.grad(out, {inputs}, retain_graph=True)")
    with script.control():
        script.run(f"grads = torch.autograd.grad(out, {inputs}, allow_unused=True)")
        script.check("grads[-1] is None",
                     "allow_unused=True gave {grads[-1]!r} for the unused input")
        _check_returned(script, program, leaves, expected)


@behaviour("GRAD-2")
@needs("autograd_grad")
@given(data=st.data(), allow=st.sampled_from(["", ", allow_unused=True"]))
def test_materialize_grads_gives_zeros_for_unused_inputs(engine, data, allow):
    """With materialize_grads=True an unused input gets zeros instead of None (allow_unused
    omitted or True) and the others are unchanged; with allow_unused=False it is a ValueError."""
    script, program, leaves, inputs, expected = _with_an_unused_input(engine, data)
    script.raises(f"torch.autograd.grad(out, {inputs}, retain_graph=True, allow_unused=False, "
                  "materialize_grads=True)", error="ValueError")
    with script.control():
        script.run(f"grads = torch.autograd.grad(out, {inputs}, materialize_grads=True{allow})")
        script.check_close("grads[-1]", np.zeros(2), dtype=program.dtype, oracle="zeros")
        _check_returned(script, program, leaves, expected)


@behaviour("GRAD-3")
@needs("autograd_grad")
@given(data=st.data())
def test_only_inputs_is_deprecated_and_ignored(engine, data):
    """only_inputs=False warns with a FutureWarning and changes nothing: autograd.grad returns the
    inputs' gradients and fills no leaf's .grad."""
    program = data.draw(programs(engine, requires_grad="all"), label="program")
    leaves = program.grad_leaves()
    name = data.draw(st.sampled_from([leaf.name for leaf in leaves]), label="input")
    script = Script(engine)
    script.build(program)
    script.warns(f"grads = torch.autograd.grad(out, [{name}], only_inputs=False)",
                 "only_inputs argument is deprecated", category="FutureWarning")
    expected = analytic_grads(program, wrt=[name])
    script.check_close("grads[0]", expected[name], dtype=program.dtype, oracle="analytic",
                       magnitude=expected.magnitude)
    for leaf in leaves:
        script.check(f"{leaf.name}.grad is None", f"only_inputs=False filled {leaf.name}.grad")


@behaviour("GRAD-4")
@needs("autograd_grad")
@given(data=st.data())
def test_gradients_with_respect_to_intermediates(engine, data):
    """autograd.grad accepts non-leaf inputs: the gradient of out with respect to an intermediate
    (no retain_grad needed)."""
    program = data.draw(programs(engine, candidates=recorded_nodes), label="program")
    name = data.draw(st.sampled_from(recorded_nodes(program)), label="intermediate")
    event(f"gradient with respect to the output itself: {name == program.output}")
    expected = analytic_grads(program, wrt=[name])
    script = Script(engine)
    script.build(program)
    script.run(f"(grad,) = torch.autograd.grad(out, [{name}])")
    script.check_close("grad", expected[name], dtype=program.dtype, oracle="analytic",
                       magnitude=expected.magnitude)


@behaviour("JAC-2")
@needs("autograd_grad")
@given(data=st.data())
def test_autograd_grad_of_a_non_scalar_needs_grad_outputs(engine, data):
    """For an output of several elements autograd.grad raises without grad_outputs, and with
    grad_outputs=v returns the vector-Jacobian product v^T J."""
    program = data.draw(programs(engine, output="vector"), label="program")
    leaves = program.grad_leaves()
    v = data.draw(cotangents(program.output_shape(), program.dtype), label="grad_outputs")
    expected = analytic_grads(program, v)
    script = Script(engine)
    script.build(program)
    script.raises(f"torch.autograd.grad(out, {_names(leaves)}, retain_graph=True)")
    with script.control():
        script.run(f"v = torch.tensor({literal(v)}, dtype=torch.{program.dtype})",
                   f"grads = torch.autograd.grad(out, {_names(leaves)}, grad_outputs=v)")
        _check_returned(script, program, leaves, expected, oracle="analytic v^T J")


@behaviour("RETAIN-2")
@needs("autograd_grad")
@given(data=st.data())
def test_autograd_grad_frees_the_graph_too(engine, data):
    """autograd.grad frees saved tensors like backward: a second call raises unless the first
    passed retain_graph=True, and then gives the same result."""
    program = data.draw(programs(engine, saves_tensors=True), label="program")
    leaves = program.grad_leaves()
    magnitude = analytic_grads(program).magnitude   # the scale of their rounding differences
    script = Script(engine)
    for retain in (True, False):
        script.build(program)
        script.run(f"first = torch.autograd.grad(out, {_names(leaves)}, retain_graph={retain})")
        if retain:
            with script.control():
                script.run(f"second = torch.autograd.grad(out, {_names(leaves)})")
                for index, leaf in enumerate(leaves):
                    script.check(f"first[{index}] is not None",
                                 f"the first autograd.grad gave None for {leaf.name}")
                    script.check_agrees(f"second[{index}]", f"first[{index}]",
                                        dtype=program.dtype, oracle="the first call",
                                        magnitude=magnitude)
        else:
            script.raises(f"torch.autograd.grad(out, {_names(leaves)})")


@behaviour("REQ-12")
@control("test_autograd_grad.py::test_autograd_grad_returns_gradients_without_touching_grad")
@needs("autograd_grad")
@given(data=st.data())
def test_autograd_grad_for_an_input_not_requiring_grad_raises(engine, data):
    """Asking autograd.grad for the gradient of a tensor that does not require grad raises."""
    program = data.draw(programs(engine), label="program")
    plain = [leaf for leaf in program.leaves if not leaf.requires_grad]
    script = Script(engine)
    script.build(program)
    if plain:
        target = plain[0].name
    else:
        target = "constant"
        script.run("constant = torch.ones(2)")
    script.raises(f"torch.autograd.grad(out, [{target}], allow_unused=True)")


@behaviour("GRAD-8")
@control("test_autograd_grad.py::test_autograd_grad_returns_gradients_without_touching_grad")
@needs("autograd_grad")
@given(data=st.data())
def test_autograd_grad_with_no_inputs_raises(engine, data):
    """autograd.grad(out, []) raises: RuntimeError in torch 2.13, ValueError before."""
    program = data.draw(programs(engine, max_ops=2), label="program")
    script = Script(engine)
    script.build(program)
    script.raises("torch.autograd.grad(out, [])", error="(RuntimeError, ValueError)")


@behaviour("MISC-4")
@needs("backward_inputs")
@given(data=st.data())
def test_backward_inputs_accumulates_only_into_the_named_tensors(engine, data):
    """backward(inputs=[...]) accumulates into the named leaves only (with their usual
    gradients); the other leaves keep .grad None."""
    program = data.draw(programs(engine, requires_grad="all"), label="program")
    leaves = program.grad_leaves()
    names = data.draw(st.lists(st.sampled_from([leaf.name for leaf in leaves]), min_size=1,
                               unique=True), label="inputs")
    expected = analytic_grads(program, wrt=names)
    script = Script(engine)
    script.build(program)
    script.run(f"out.backward(inputs=[{', '.join(names)}])")
    assert_grads_only_where_expected(script, program, expected, oracle="analytic",
                                     why_none="is not in inputs")


@behaviour("GRAD-11")
@needs("backward_inputs")
@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf:UserWarning")
@given(data=st.data(), off=st.sampled_from(["z", "z * 2.0"]))
def test_backward_inputs_off_the_graph_keep_grad_none(engine, data, off):
    """backward(inputs=[...]) naming, at a drawn position, a tensor t that requires grad but that
    out does not depend on (a leaf z, or z * 2 computed from one) raises nothing: t.grad stays
    None, and the leaves named beside it get their usual gradients."""
    program = data.draw(programs(engine, requires_grad="all"), label="program")
    names = data.draw(st.lists(st.sampled_from([leaf.name for leaf in program.grad_leaves()]),
                               unique=True), label="leaves named")
    position = data.draw(st.integers(0, len(names)), label="position of t")
    expected = analytic_grads(program, wrt=names)
    script = Script(engine)
    script.build(program)
    script.run("z = torch.ones(2, requires_grad=True)", f"t = {off}",
               f"out.backward(inputs=[{', '.join(names[:position] + ['t'] + names[position:])}])")
    script.check("t.grad is None", f"t = {off}, off the graph of out, got .grad {{t.grad}}")
    script.check("z.grad is None", "z, off the graph of out, got .grad {z.grad}")
    assert_grads_only_where_expected(script, program, expected, oracle="analytic",
                                     why_none="is not in inputs")


@behaviour("GRAD-13")
@needs("autograd_grad", "gradient_edge")
@given(data=st.data(), materialize=st.booleans())
def test_gradient_edges_stand_for_their_tensors(engine, data, materialize):
    """autograd.grad(out, inputs) with some inputs given as the gradient edge of a tensor t
    (torch.autograd.graph.get_gradient_edge(t), for a leaf or an intermediate t) returns for each
    the gradient with respect to t, the analytic one, with materialize_grads=True too; that
    raises RuntimeError only where an edge's tensor is unused (an edge gives no tensor to make
    zeros like), here that of a leaf z added at a drawn position."""
    program = data.draw(programs(engine, candidates=recorded_nodes), label="program")
    candidates = [leaf.name for leaf in program.grad_leaves()] + recorded_nodes(program)
    names = data.draw(st.lists(st.sampled_from(candidates), min_size=1, unique=True),
                      label="inputs")
    edges = data.draw(st.lists(st.booleans(), min_size=len(names), max_size=len(names)),
                      label="given as an edge")
    event(f"edges given: {sum(edges)} of {len(names)}")
    inputs = [f"edge({name})" if as_edge else name for name, as_edge in zip(names, edges)]
    expected = analytic_grads(program, wrt=names)
    script = Script(engine)
    script.build(program)
    script.run("edge = torch.autograd.graph.get_gradient_edge")
    if materialize:
        position = data.draw(st.integers(0, len(inputs)), label="position of edge(z)")
        unused = inputs[:position] + ["edge(z)"] + inputs[position:]
        script.run("z = torch.ones(2, requires_grad=True)")
        script.raises(f"torch.autograd.grad(out, [{', '.join(unused)}], materialize_grads=True, "
                      "retain_graph=True)")
    with script.control():
        script.run(f"grads = torch.autograd.grad(out, [{', '.join(inputs)}]"
                   f"{', materialize_grads=True' if materialize else ''})")
        for index, name in enumerate(names):
            script.check_close(f"grads[{index}]", expected[name], dtype=program.dtype,
                               oracle=f"analytic d out / d {name}", magnitude=expected.magnitude)


def _hooked_node_and_its_ancestors(engine, data):
    """A program, an intermediate h whose grad_fn backward(inputs=[h]) needs, and the leaves h
    depends on."""
    program = data.draw(programs(engine, requires_grad="all", candidates=recorded_intermediates),
                        label="program")
    hooked = data.draw(st.sampled_from(recorded_intermediates(program)), label="h")
    below = [leaf.name for leaf in program.grad_leaves() if leaf.name in program.ancestors(hooked)]
    return program, hooked, below


@behaviour("GRAD-12")
@needs("backward_inputs", "node_hooks", "hooks")
@given(data=st.data())
def test_backward_inputs_runs_the_node_of_a_non_leaf_input(engine, data):
    """backward(inputs=[h]) runs h.grad_fn although nothing below h is asked for: its pre-hook
    and post-hook fire once each, as torch 2.13 does (the autograd note calls it unnecessary and
    subject to change); the leaves below h are not reached: their tensor hooks stay silent and
    their .grad None."""
    program, hooked, below = _hooked_node_and_its_ancestors(engine, data)
    script = Script(engine)
    script.build(program)
    script.run("fired = []",
               f"{hooked}.grad_fn.register_prehook(lambda grad_outputs: fired.append('pre'))",
               f"{hooked}.grad_fn.register_hook(lambda grad_inputs, grad_outputs: "
               "fired.append('post'))",
               *(f"{leaf}.register_hook(lambda grad: fired.append('{leaf}'))" for leaf in below),
               f"out.backward(inputs=[{hooked}])")
    script.check_equal("fired", ["pre", "post"],
                       why=f"backward(inputs=[{hooked}]) runs {hooked}.grad_fn once and reaches "
                       f"none of the leaves below it, {below}")
    for leaf in below:
        script.check_equal(f"{leaf}.grad", None, why=f"{leaf} is below {hooked}, not in inputs")


# -- higher order ------------------------------------------------------------------------------

def _second_order_case(engine, data):
    """A float64 program, mostly of ops with curvature (a linear program's second derivative is
    zero, which a create_graph that is ignored would also give), or with kinks (abs, relu: their
    gradients' own derivatives are zero away from the kink, and must come out so)."""
    ops = data.draw(st.sampled_from([CURVED_OPS, CURVED_OPS + ("abs", "relu"), ALL_OPS]),
                    label="op set")
    program = data.draw(programs(engine, ops=ops, max_ops=4, dtype="float64"), label="program")
    leaf = data.draw(st.sampled_from(program.grad_leaves()), label="leaf")
    weights = data.draw(cotangents(leaf.values.shape, "float64"), label="weights")
    return program, leaf.name, weights


def _check_second_derivatives(script, program, name, weights):
    """With the script's `g` = d out / d x from autograd.grad(create_graph=True): g is the
    analytic first derivative, and d(sum(g * w))/dx equals the finite differences of the first
    derivatives (a Hessian-vector product). A gradient that does not require grad must be a
    constant (zero second derivative)."""
    expected = finite_difference_hvp(program, {name: weights})[name]
    script.run(f"w = torch.tensor({literal(weights)}, dtype=torch.float64)")
    # The first derivative itself, computed through the recorded (differentiable) formulas.
    first = analytic_grads(program, wrt=[name])
    script.check_close("g", first[name], dtype="float64", oracle="analytic",
                       magnitude=first.magnitude)
    script.run("second = None",
               "if g.requires_grad:  # else g is a constant: a zero second derivative",
               f"    (second,) = torch.autograd.grad((g * w).sum(), [{name}], allow_unused=True)")
    # None: x is unused by g, so the second derivative is zero.
    script.run(f"hvp = torch.zeros_like({name}) if second is None else second")
    script.check_close("hvp", expected, dtype="float64",
                       oracle="finite differences of first derivatives",
                       tolerance=FINITE_DIFFERENCE)


@behaviour("HO-1")
@needs("autograd_grad", "higher_order", "float64")
@given(data=st.data())
def test_create_graph_gives_second_derivatives(engine, data):
    """With create_graph=True the gradient g = d out / d x is differentiable: d(sum(g * w))/dx
    equals the finite differences of the first derivatives (a Hessian-vector product)."""
    program, name, weights = _second_order_case(engine, data)
    script = Script(engine)
    script.build(program)
    script.run(f"(g,) = torch.autograd.grad(out, [{name}], create_graph=True)")
    _check_second_derivatives(script, program, name, weights)


@behaviour("MODE-8")
@needs("autograd_grad", "higher_order", "float64")
@given(data=st.data())
def test_create_graph_records_the_gradient_inside_no_grad(engine, data):
    """Grad mode during backward is create_graph's, whatever the caller's: inside no_grad,
    autograd.grad(create_graph=True) still returns a differentiable gradient, whose derivative is
    the Hessian-vector product."""
    program, name, weights = _second_order_case(engine, data)
    script = Script(engine)
    script.build(program)
    script.run("with torch.no_grad():",
               f"    (g,) = torch.autograd.grad(out, [{name}], create_graph=True)")
    _check_second_derivatives(script, program, name, weights)


def _relu_times(base, x_values):
    """`base` continued as sum(relu(x) * h), with h its output and x a new leaf of h's shape that
    requires grad; returns the program and x's name."""
    count = len(base.leaves) + len(base.nodes)
    x, relu, product, total = f"x{count}", f"v{count + 1}", f"v{count + 2}", f"v{count + 3}"
    nodes = (Node(relu, "relu", (x,)), Node(product, "mul", (relu, base.output)),
             Node(total, "sum", (product,)))
    return Program("float64", base.leaves + (Leaf(x, x_values, True),), base.nodes + nodes,
                   total), x


@behaviour("HO-1")
@needs("autograd_grad", "higher_order", "float64")
@given(data=st.data(), upstream=st.sampled_from(["some", "none"]))
def test_relu_double_backward_masks_the_upstream_gradient(engine, data, upstream):
    """For out = sum(relu(x) * h), h a program's output, create_graph gives g = d out / dx =
    h * [x > 0] (0 at x == 0 exactly, GRAD-6); d(sum(g * w)) is w * [x > 0] pulled back through h
    (h's v^T J with v = w * [x > 0]) for h's leaves, and for x a zero tensor (relu'' = 0), not an
    unused input, which is itself differentiable (to zero again)."""
    base = data.draw(programs(engine, max_ops=4, output="any", requires_grad=upstream,
                              dtype="float64"), label="program of h")
    # x within [-1, 1] half the time: a relu mask taken at the wrong threshold (x > 1) shows
    x_bound = data.draw(st.sampled_from([1.0, 3.0]), label="x bound")
    x_values = data.draw(values(base.output_shape(), "float64", bound=x_bound), label="x")
    weights = data.draw(cotangents(x_values.shape, "float64"), label="weights")
    program, x = _relu_times(base, x_values)
    leaves = base.grad_leaves()
    zeros = np.zeros_like(x_values)
    script = Script(engine)
    script.build(program)
    script.run(f"(g,) = torch.autograd.grad(out, [{x}], create_graph=True)",
               f"w = torch.tensor({literal(weights)}, dtype=torch.float64)")
    first = analytic_grads(program, wrt=[x])
    script.check_close("g", first[x], dtype="float64", oracle="analytic h * [x > 0]",
                       magnitude=first.magnitude)
    if leaves:
        expected = analytic_grads(base, weights * (x_values > 0))
        script.run(f"second = torch.autograd.grad((g * w).sum(), {_names(leaves)}, "
                   "retain_graph=True)")
        for index, leaf in enumerate(leaves):
            script.check_close(f"second[{index}]", expected[leaf.name], dtype="float64",
                               oracle="analytic v^T J of h, v = w * [x > 0]",
                               magnitude=expected.magnitude)
    script.run(f"(second_x,) = torch.autograd.grad((g * w).sum(), [{x}], create_graph=True)")
    script.check_close("second_x", zeros, dtype="float64", oracle="relu'' = 0")
    script.run(f"(third_x,) = torch.autograd.grad(second_x.sum(), [{x}])")
    script.check_close("third_x", zeros, dtype="float64", oracle="zero derivative of 0")


@behaviour("HO-2")
@needs("autograd_grad")
@given(data=st.data())
def test_without_create_graph_gradients_are_constants(engine, data):
    """Without create_graph, the gradients autograd.grad returns do not require grad and have no
    grad_fn."""
    program = data.draw(programs(engine), label="program")
    leaves = program.grad_leaves()
    script = Script(engine)
    script.build(program)
    script.run(f"grads = torch.autograd.grad(out, {_names(leaves)})")
    for index, leaf in enumerate(leaves):
        script.check(f"not grads[{index}].requires_grad and grads[{index}].grad_fn is None",
                     f"the gradient for {leaf.name} is part of a graph without create_graph")


# A fresh process's first backward(create_graph=True), recording the warnings it gives; `module`
# is the engine's (torch itself in the printed script).
FRESH_PROCESS = """\
import importlib, warnings
module, _, attribute = "{module}".partition(":")
torch = importlib.import_module(module)
torch = getattr(torch, attribute) if attribute else torch
x = torch.tensor([1.5], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    (x ** 2).sum().backward(create_graph=True)
print([str(w.message) for w in caught if issubclass(w.category, UserWarning)])
"""


@behaviour("MISC-14")
@needs("backward_create_graph")
@pytest.mark.fresh_process
def test_backward_with_create_graph_warns_about_a_reference_cycle(engine):
    """The first backward(create_graph=True) of a process warns (a UserWarning) that it creates a
    reference cycle between a parameter and its gradient. torch warns once per process, so the
    call runs in a fresh Python process that imports the engine as torch (by the adapter's
    `__name__`: a module, or `module:attribute`)."""
    script = Script(engine)
    script.run("import subprocess, sys",
               f'child = """\\\n{FRESH_PROCESS}""".format(module=torch.__name__)',
               "result = subprocess.run([sys.executable, '-c', child], capture_output=True, "
               "text=True)")
    script.check("result.returncode == 0", "the fresh process failed:\n{result.stderr}")
    script.check("'Using backward() with create_graph=True will create a reference cycle' in "
                 "result.stdout", "its UserWarnings were {result.stdout}")


@behaviour("HO-3")
@needs("backward_create_graph", "autograd_grad", "float64")  # the oracle uses autograd.grad
@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning")
@given(data=st.data())
def test_backward_with_create_graph_stores_a_differentiable_grad(engine, data):
    """After backward(create_graph=True) the leaf's .grad is differentiable: backward from
    sum(x.grad * w), into a cleared x.grad, gives the Hessian-vector product."""
    program, name, weights = _second_order_case(engine, data)
    expected = finite_difference_hvp(program, {name: weights})[name]
    script = Script(engine)
    script.build(program)
    script.run("out.backward(create_graph=True)", f"g = {name}.grad")
    first = analytic_grads(program, wrt=[name])
    script.check_close("g", first[name], dtype="float64", oracle="analytic",
                       magnitude=first.magnitude)
    script.run(f"{name}.grad = None", f"w = torch.tensor({literal(weights)}, dtype=torch.float64)")
    script.run("if g.requires_grad:  # else g is a constant: a zero second derivative",
               "    (g * w).sum().backward()")
    # No .grad: nothing reached x, so the second derivative is zero.
    script.run(f"hvp = torch.zeros_like({name}) if {name}.grad is None else {name}.grad")
    script.check_close("hvp", expected, dtype="float64",
                       oracle="finite differences of first derivatives",
                       tolerance=FINITE_DIFFERENCE)


# -- several outputs, refusals, what backward returns (GRAD-9, GRAD-10, MISC-5, MISC-6) ---------

def _several_outputs(engine, data, edges: bool):
    """A program, one to four of its tensors as autograd.grad's outputs (out and intermediates,
    distinct where the program has enough) with a vector v_k each, and the Script that has asked
    for the gradients of its leaves that require grad, as `grads`. With `edges`, some outputs
    (one at least) are given as their gradient edges. Returns the Script, the program, the leaves'
    names, and each output's analytic v_k^T J_k."""
    count = data.draw(counts(FUNCTION_OUTPUTS), label="number of outputs")
    program = data.draw(programs(engine, output="any", candidates=recorded_intermediates),
                        label="program")
    others = recorded_intermediates(program)
    outputs = [program.output] + data.draw(
        st.lists(st.sampled_from(others), min_size=count - 1, max_size=count - 1,
                 unique=len(others) >= count - 1), label="other outputs")
    given = ["out"] + outputs[1:]
    if edges:
        as_edge = data.draw(st.lists(st.booleans(), min_size=count, max_size=count),
                            label="given as an edge")
        as_edge[data.draw(st.integers(0, count - 1), label="one edge at least")] = True
        event(f"outputs given as edges: {sum(as_edge)} of {count}")
        given = [f"edge({name})" if flag else name for name, flag in zip(given, as_edge)]
    values_ = program.evaluate()
    vectors = [data.draw(cotangents(values_[name].shape, program.dtype), label=f"v_{k + 1}")
               for k, name in enumerate(outputs)]
    leaves = program.grad_leaves()
    names = [leaf.name for leaf in leaves]
    products = [analytic_grads(Program(program.dtype, program.leaves, program.nodes, name), v,
                               wrt=names) for name, v in zip(outputs, vectors)]
    script = Script(engine)
    script.build(program)
    if edges:
        script.run("edge = torch.autograd.graph.get_gradient_edge")
    script.run(*(f"grad_output{k + 1} = torch.tensor({literal(v)}, dtype=torch.{program.dtype})"
                 for k, v in enumerate(vectors)),
               f"grads = torch.autograd.grad([{', '.join(given)}], {_names(leaves)}, "
               f"grad_outputs=[{', '.join(f'grad_output{k + 1}' for k in range(count))}])")
    return script, program, names, products


def _check_sums_of_products(script, program, names, products) -> None:
    """Each of `grads` is the sum over the outputs of their products v_k^T J_k."""
    __tracebackhide__ = True
    for index, name in enumerate(names):
        script.check_close(f"grads[{index}]", sum(each[name] for each in products),
                           dtype=program.dtype, oracle="analytic sum of v_k^T J_k",
                           magnitude=sum(each.magnitude for each in products))


@behaviour("GRAD-9")
@needs("autograd_grad")
@given(data=st.data())
def test_autograd_grad_of_several_outputs_sums_their_products(engine, data):
    """autograd.grad([out, h2, ...], inputs, grad_outputs=[v1, v2, ...]), one to four outputs
    (out and intermediates, distinct where the program has enough), returns for each input the
    sum over the outputs of their vector-Jacobian products v_k^T J_k, each v_k its own."""
    _check_sums_of_products(*_several_outputs(engine, data, edges=False))


@behaviour("GRAD-13")
@needs("autograd_grad", "gradient_edge")
@given(data=st.data())
def test_gradient_edges_stand_for_their_tensors_among_outputs(engine, data):
    """autograd.grad([edge(out), h2, ...], inputs, grad_outputs=[v1, v2, ...]) with some outputs
    (one at least) given as their gradient edges: each edge's gradient v_k starts from the edge's
    node as its tensor's would, so the results are those with the tensors themselves, the sums
    of the products v_k^T J_k."""
    _check_sums_of_products(*_several_outputs(engine, data, edges=True))


@behaviour("GRAD-10")
@control("test_autograd_grad.py::test_autograd_grad_returns_gradients_without_touching_grad")
@needs("autograd_grad", "messages")
@given(data=st.data())
def test_unused_input_message(engine, data):
    """An input the output does not depend on, at a drawn position among the inputs, is named by
    its index in torch's text, which tells the user about allow_unused."""
    program = data.draw(programs(engine), label="program")
    names = [leaf.name for leaf in program.grad_leaves()]
    index = data.draw(st.integers(0, len(names)), label="position of the unused input")
    names.insert(index, "unused")
    script = Script(engine)
    script.build(program)
    script.run("unused = torch.ones(2, requires_grad=True)")
    script.raises(f"torch.autograd.grad(out, [{', '.join(names)}])",
                  f"The differentiated Tensor at index {index} appears to not have been used in "
                  "the graph. Set allow_unused=True if this is the desired behavior.")


@behaviour("MISC-5")
@control("test_autograd_grad.py::test_backward_inputs_accumulates_only_into_the_named_tensors")
@needs("backward_inputs")
@given(data=st.data(), inputs=st.sampled_from(["an empty list", "a leaf without grad"]))
def test_backward_inputs_refuses_nothing_and_constants(engine, data, inputs):
    """backward(inputs=[]) raises RuntimeError, and so does backward(inputs=[c]) for a leaf c of
    the graph that does not require grad."""
    program = data.draw(programs(engine, requires_grad="mixed"), label="program")
    plain = [leaf.name for leaf in program.leaves if not leaf.requires_grad
             and leaf.name in program.ancestors()]
    script = Script(engine)
    script.build(program)
    if inputs == "an empty list":
        script.raises("out.backward(inputs=[])")
    else:
        name = data.draw(st.sampled_from(plain), label="leaf without grad")
        script.raises(f"out.backward(inputs=[{name}])")


@behaviour("MISC-6")
@pytest.mark.parametrize("call", [
    "out.backward()",
    pytest.param("torch.autograd.backward([out])", marks=needs("autograd_backward"))])
@given(data=st.data())
def test_backward_returns_none(engine, call, data):
    """Tensor.backward() and autograd.backward() return None; the gradients are in .grad."""
    program = data.draw(programs(engine), label="program")
    script = Script(engine)
    script.build(program)
    script.run(f"returned = {call}")
    script.check_equal("returned", None, why=f"what {call} returns")
    for leaf in program.grad_leaves():
        script.check(f"{leaf.name}.grad is not None", f"{call} filled no .grad of {leaf.name}")


# -- chains of derivatives (HO-4, HO-5, HO-6) ------------------------------------------------------

def _tanh_derivatives(x):
    t = np.tanh(x)
    return 1 - t ** 2, -2 * t * (1 - t ** 2), (1 - t ** 2) * (6 * t ** 2 - 2)


def _sigmoid_derivatives(x):
    s = 1 / (1 + np.exp(-x))
    first = s * (1 - s)
    return first, first * (1 - 2 * s), first * (1 - 6 * s + 6 * s ** 2)


# HO-4's functions: the expression of x, its first three derivatives, and where x is drawn.
DERIVATIVES = {
    "x ** 3": (lambda x: (3 * x ** 2, 6 * x, np.full_like(x, 6.0)), "any"),
    "x ** 4": (lambda x: (4 * x ** 3, 12 * x ** 2, 24 * x), "any"),
    "torch.exp(x)": (lambda x: (np.exp(x),) * 3, "any"),
    "torch.tanh(x)": (_tanh_derivatives, "any"),
    "torch.sigmoid(x)": (_sigmoid_derivatives, "any"),
    "torch.log(x)": (lambda x: (1 / x, -1 / x ** 2, 2 / x ** 3), "positive"),
}


@behaviour("HO-4")
@needs("autograd_grad", "higher_order", "float64")
@given(shape=shapes(), data=st.data(), function=st.sampled_from(sorted(DERIVATIVES)))
def test_repeated_create_graph_gives_successive_derivatives(engine, shape, data, function):
    """For an elementwise f, d1 = grad(f(x).sum(), x, create_graph=True), d2 = grad(d1.sum(), x,
    create_graph=True) and d3 = grad(d2.sum(), x) are f', f'' and f''' at x, in float64."""
    derivatives, domain = DERIVATIVES[function]
    x = data.draw(values(shape, "float64"), label="x")
    if domain == "positive":
        x = np.abs(x) + 0.5     # away from log's pole
    expected = derivatives(x)
    script = Script(engine)
    script.run(f"x = torch.tensor({literal(x)}, dtype=torch.float64, requires_grad=True)",
               f"d1, = torch.autograd.grad(({function}).sum(), x, create_graph=True)",
               "d2, = torch.autograd.grad(d1.sum(), x, create_graph=True)",
               "d3, = torch.autograd.grad(d2.sum(), x)")
    for order, derivative in enumerate(expected, start=1):
        script.check_close(f"d{order}", derivative, dtype="float64",
                           oracle=f"closed form of derivative {order} of {function}")


# HO-5's functions linear in x, with constants c (away from 0) and d, and their gradient.
LINEAR = {"(x * c).sum()": lambda c, n: c, "(c * x + d).sum()": lambda c, n: c,
          "((x - d) / c).sum()": lambda c, n: 1 / c, "(x * c).mean()": lambda c, n: c / n,
          "x.sum() * 2.0": lambda c, n: np.full_like(c, 2.0)}


@behaviour("HO-5")
@needs("autograd_grad", "higher_order")
@given(shape=shapes(), data=st.data(), function=st.sampled_from(sorted(LINEAR)))
def test_a_constant_gradient_is_not_differentiable(engine, shape, data, function):
    """For f linear in x with constant coefficients, g = grad(f, x, create_graph=True) depends on
    nothing that requires grad: it has the right values but does not require grad, and
    grad(g.sum(), x) raises RuntimeError. With a coefficient w that requires grad instead, the
    gradient w does require grad."""
    c = data.draw(values(shape, "float32"), label="c")
    c = np.where(c < 0, c - 0.5, c + 0.5)       # away from 0, for 1 / c
    d = data.draw(values(shape, "float32"), label="d")
    x = data.draw(values(shape, "float32"), label="x")
    script = Script(engine)
    script.run(f"x = {tensor_literal(x, 'float32', requires_grad=True)}",
               f"c = {tensor_literal(c, 'float32')}", f"d = {tensor_literal(d, 'float32')}",
               f"g, = torch.autograd.grad({function}, x, create_graph=True)")
    script.check_close("g", LINEAR[function](c, max(c.size, 1)), dtype="float32",
                       oracle=f"the constant gradient of {function}")
    script.check("not g.requires_grad and g.grad_fn is None",
                 f"the gradient of {function} is a constant but requires grad "
                 "(grad_fn={g.grad_fn})")
    script.raises("torch.autograd.grad(g.sum(), x)")
    with script.control():
        script.run("w = c.clone().requires_grad_()",
                   "g_w, = torch.autograd.grad((x * w).sum(), x, create_graph=True)")
        script.check("g_w.requires_grad", "the gradient w of sum(x * w) does not require grad, "
                                          "although w does")


# HO-6's functions linear in x, with a coefficient c that requires grad (away from 0) and a
# constant d: d sum(g) / dc for their gradient g, which depends on c only.
LINEAR_IN_C = {"(x * c).sum()": lambda c, n: np.ones_like(c),
               "(c * x + d).sum()": lambda c, n: np.ones_like(c),
               "((x - d) / c).sum()": lambda c, n: -1 / c ** 2,
               "(x * c).mean()": lambda c, n: np.full_like(c, 1 / n)}


@behaviour("HO-6")
@needs("autograd_grad", "higher_order")
@given(shape=shapes(), data=st.data(), function=st.sampled_from(sorted(LINEAR_IN_C)))
def test_an_unused_input_of_a_second_derivative_is_none_or_zeros(engine, shape, data, function):
    """For f linear in x with a coefficient c that requires grad, g = grad(f, x,
    create_graph=True) depends on c but not on x: grad(g.sum(), [x, c], allow_unused=True) gives
    None for x and d sum(g) / dc for c, and with materialize_grads=True zeros for x instead."""
    c = data.draw(values(shape, "float32"), label="c")
    c = np.where(c < 0, c - 0.5, c + 0.5)       # away from 0, for 1 / c
    d = data.draw(values(shape, "float32"), label="d")
    x = data.draw(values(shape, "float32"), label="x")
    script = Script(engine)
    script.run(f"x = {tensor_literal(x, 'float32', requires_grad=True)}",
               f"c = {tensor_literal(c, 'float32', requires_grad=True)}",
               f"d = {tensor_literal(d, 'float32')}",
               f"g, = torch.autograd.grad({function}, x, create_graph=True)",
               "unused = torch.autograd.grad(g.sum(), [x, c], allow_unused=True, "
               "retain_graph=True)")
    script.check("unused[0] is None", "allow_unused=True gave {unused[0]!r} for x, which g does "
                                      "not depend on")
    expected = LINEAR_IN_C[function](c, max(c.size, 1))
    script.check_close("unused[1]", expected, dtype="float32",
                       oracle=f"d sum(g) / dc of {function}")
    script.run("zeros = torch.autograd.grad(g.sum(), [x, c], materialize_grads=True)")
    script.check_close("zeros[0]", np.zeros_like(x), dtype="float32", oracle="zeros")
    script.check_close("zeros[1]", expected, dtype="float32",
                       oracle=f"d sum(g) / dc of {function}")
