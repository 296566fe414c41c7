"""autograd.grad returns gradients instead of accumulating them; create_graph makes them
differentiable; backward(inputs=...) restricts accumulation (GRAD-*, HO-*, JAC-2, RETAIN-2,
REQ-12, MISC-4)."""

import numpy as np
import pytest
from hypothesis import event, given, strategies as st

from autograd_conformance.harness.checks import assert_grads_only_where_expected
from autograd_conformance.harness.oracles import (FINITE_DIFFERENCE, central_differences,
                                                  analytic_grads)
from autograd_conformance.harness.script import Script, literal
from autograd_conformance.harness.strategies import (ALL_OPS, CURVED_OPS, cotangents, programs,
                                                     recorded_nodes)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs


def _names(leaves) -> str:
    """The leaves as the list literal of the script's inputs: `[x0, x2]`."""
    return f"[{', '.join(leaf.name for leaf in leaves)}]"


@behaviour("GRAD-1")
@needs("autograd_grad")
@given(data=st.data())
def test_autograd_grad_returns_gradients_without_touching_grad(engine, data):
    """autograd.grad(out, leaves) returns a tuple with one gradient per input (the finite
    differences) and leaves every .grad None."""
    program = data.draw(programs(engine), label="program")
    leaves = program.grad_leaves()
    expected = analytic_grads(program)
    script = Script(engine)
    script.build(program)
    script.run(f"grads = torch.autograd.grad(out, {_names(leaves)})")
    script.check(f"isinstance(grads, tuple) and len(grads) == {len(leaves)}",
                 f"autograd.grad returned {{type(grads).__name__}} of length {{len(grads)}} for "
                 f"{len(leaves)} inputs")
    for index, leaf in enumerate(leaves):
        script.check(f"{leaf.name}.grad is None", f"autograd.grad filled {leaf.name}.grad")
        script.check_close(f"grads[{index}]", expected[leaf.name], dtype=program.dtype,
                           oracle="analytic")


@behaviour("GRAD-1")
@needs("autograd_grad")
@given(data=st.data())
def test_autograd_grad_equals_backward_into_fresh_leaves(engine, data):
    """The algebraic oracle: what autograd.grad returns is what backward() accumulates into
    leaves whose .grad was None."""
    program = data.draw(programs(engine), label="program")
    leaves = program.grad_leaves()
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
                            oracle="autograd.grad")


@behaviour("GRAD-2")
@needs("autograd_grad")
@given(data=st.data())
def test_unused_inputs_raise_unless_allowed(engine, data):
    """An input that the output does not depend on makes autograd.grad raise; with
    allow_unused=True its gradient is None and the others are unchanged."""
    program = data.draw(programs(engine), label="program")
    leaves = program.grad_leaves()
    inputs = f"[{', '.join(leaf.name for leaf in leaves)}, unused]"
    expected = analytic_grads(program)
    script = Script(engine)
    script.build(program)
    script.run("unused = torch.ones(2, requires_grad=True)")
    script.raises(f"torch.autograd.grad(out, {inputs}, retain_graph=True)")
    script.run(f"grads = torch.autograd.grad(out, {inputs}, allow_unused=True)")
    script.check("grads[-1] is None",
                 "allow_unused=True gave {grads[-1]!r} for the unused input")
    for index, leaf in enumerate(leaves):
        script.check_close(f"grads[{index}]", expected[leaf.name], dtype=program.dtype,
                           oracle="analytic")


@behaviour("GRAD-4")
@needs("autograd_grad")
@given(data=st.data())
def test_gradients_with_respect_to_intermediates(engine, data):
    """autograd.grad accepts non-leaf inputs: the gradient of out with respect to an intermediate
    (no retain_grad needed)."""
    program = data.draw(programs(engine, candidates=recorded_nodes), label="program")
    name = data.draw(st.sampled_from(recorded_nodes(program)), label="intermediate")
    event(f"gradient with respect to the output itself: {name == program.output}")
    expected = analytic_grads(program, wrt=[name])[name]
    script = Script(engine)
    script.build(program)
    script.run(f"(grad,) = torch.autograd.grad(out, [{name}])")
    script.check_close("grad", expected, dtype=program.dtype, oracle="analytic")


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
    script.run(f"v = torch.tensor({literal(v)}, dtype=torch.{program.dtype})",
               f"grads = torch.autograd.grad(out, {_names(leaves)}, grad_outputs=v)")
    for index, leaf in enumerate(leaves):
        script.check_close(f"grads[{index}]", expected[leaf.name], dtype=program.dtype,
                           oracle="analytic v^T J")


@behaviour("RETAIN-2")
@needs("autograd_grad")
@given(data=st.data(), retain=st.booleans())
def test_autograd_grad_frees_the_graph_too(engine, data, retain):
    """autograd.grad frees saved tensors like backward: a second call raises unless the first
    passed retain_graph=True, and then gives the same result."""
    program = data.draw(programs(engine, saves_tensors=True), label="program")
    leaves = program.grad_leaves()
    event(f"retain_graph={retain}")
    script = Script(engine)
    script.build(program)
    script.run(f"first = torch.autograd.grad(out, {_names(leaves)}, retain_graph={retain})")
    if retain:
        script.run(f"second = torch.autograd.grad(out, {_names(leaves)})")
        for index, leaf in enumerate(leaves):
            script.check(f"first[{index}] is not None",
                         f"the first autograd.grad gave None for {leaf.name}")
            script.check_agrees(f"second[{index}]", f"first[{index}]", dtype=program.dtype,
                                oracle="the first call")
    else:
        script.raises(f"torch.autograd.grad(out, {_names(leaves)})")


@behaviour("REQ-12")
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
    expected = analytic_grads(program)
    script = Script(engine)
    script.build(program)
    script.run(f"out.backward(inputs=[{', '.join(names)}])")
    assert_grads_only_where_expected(script, program,
                                     {name: expected[name] for name in names},
                                     oracle="analytic", why_none="is not in inputs")


# -- higher order ------------------------------------------------------------------------------

def _hvp_by_finite_differences(program, leaf_name, weights):
    """sum_i w_i d g_i / d x_j: central differences of the analytic first derivatives g, an
    oracle that asks the engine nothing (accurate to FINITE_DIFFERENCE, harness/oracles.py)."""
    def weighted_first_derivative(values):
        moved = program.with_leaf_values(leaf_name, values)
        return float(np.sum(analytic_grads(moved, wrt=[leaf_name])[leaf_name] * weights))
    return central_differences(weighted_first_derivative, program.leaf(leaf_name).values)


def _second_order_case(engine, data):
    """A float64 program, mostly of ops with curvature (a linear program's second derivative is
    zero, which a create_graph that is ignored would also give)."""
    ops = data.draw(st.sampled_from([CURVED_OPS, ALL_OPS]), label="op set")
    program = data.draw(programs(engine, ops=ops, max_ops=4, dtype="float64"), label="program")
    leaf = data.draw(st.sampled_from(program.grad_leaves()), label="leaf")
    weights = data.draw(cotangents(leaf.values.shape, "float64"), label="weights")
    return program, leaf.name, weights


@behaviour("HO-1")
@needs("autograd_grad", "higher_order", "float64")
@given(data=st.data())
def test_create_graph_gives_second_derivatives(engine, data):
    """With create_graph=True the gradient g = d out / d x is differentiable: d(sum(g * w))/dx
    equals the finite differences of the first derivatives (a Hessian-vector product). A gradient
    that does not require grad must be a constant (zero second derivative)."""
    program, name, weights = _second_order_case(engine, data)
    expected = _hvp_by_finite_differences(program, name, weights)
    script = Script(engine)
    script.build(program)
    script.run(f"(g,) = torch.autograd.grad(out, [{name}], create_graph=True)",
               f"w = torch.tensor({literal(weights)}, dtype=torch.float64)")
    # The first derivative itself, computed through the recorded (differentiable) formulas.
    script.check_close("g", analytic_grads(program, wrt=[name])[name], dtype="float64",
                       oracle="analytic")
    script.run("second = None",
               "if g.requires_grad:  # else g is a constant: a zero second derivative",
               f"    (second,) = torch.autograd.grad((g * w).sum(), [{name}], allow_unused=True)")
    # None: x is unused by g, so the second derivative is zero.
    script.run(f"hvp = torch.zeros_like({name}) if second is None else second")
    script.check_close("hvp", expected, dtype="float64",
                       oracle="finite differences of first derivatives",
                       tolerance=FINITE_DIFFERENCE)


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


@behaviour("HO-3")
@needs("backward_create_graph", "autograd_grad", "float64")  # the oracle uses autograd.grad
@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning")
@given(data=st.data())
def test_backward_with_create_graph_stores_a_differentiable_grad(engine, data):
    """After backward(create_graph=True) the leaf's .grad is differentiable: backward from
    sum(x.grad * w), into a cleared x.grad, gives the Hessian-vector product."""
    program, name, weights = _second_order_case(engine, data)
    expected = _hvp_by_finite_differences(program, name, weights)
    script = Script(engine)
    script.build(program)
    script.run("out.backward(create_graph=True)", f"g = {name}.grad")
    script.check_close("g", analytic_grads(program, wrt=[name])[name], dtype="float64",
                       oracle="analytic")
    script.run(f"{name}.grad = None", f"w = torch.tensor({literal(weights)}, dtype=torch.float64)")
    script.run("if g.requires_grad:  # else g is a constant: a zero second derivative",
               "    (g * w).sum().backward()")
    # No .grad: nothing reached x, so the second derivative is zero.
    script.run(f"hvp = torch.zeros_like({name}) if {name}.grad is None else {name}.grad")
    script.check_close("hvp", expected, dtype="float64",
                       oracle="finite differences of first derivatives",
                       tolerance=FINITE_DIFFERENCE)
