"""autograd.grad returns gradients instead of accumulating them; create_graph makes them
differentiable; backward(inputs=...) restricts accumulation (GRAD-*, HO-*, JAC-2, RETAIN-2,
REQ-12, MISC-4)."""

import numpy as np
import pytest
from hypothesis import event, given, strategies as st

from autograd_conformance.harness.checks import (build, engine_tensor, grad_or_none, raises_runtime_error,
                            values_or_none)
from autograd_conformance.harness.oracles import assert_close, central_differences, finite_difference_grads
from autograd_conformance.harness.strategies import (ALL_OPS, CURVED_OPS, cotangents, programs,
                                                     recorded_nodes)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs


def _grad(engine, outputs, inputs, **options):
    return engine.ns.autograd.grad(outputs, inputs, **options)


@behaviour("GRAD-1")
@needs("autograd_grad")
@given(data=st.data())
def test_autograd_grad_returns_gradients_without_touching_grad(engine, data):
    """autograd.grad(out, leaves) returns a tuple with one gradient per input (the finite
    differences) and leaves every .grad None."""
    program = data.draw(programs(engine), label="program")
    leaves = program.grad_leaves()
    tensors = build(program, engine, f"torch.autograd.grad(out, [{', '.join(l.name for l in leaves)}])")
    result = _grad(engine, tensors[program.output], [tensors[leaf.name] for leaf in leaves])
    assert isinstance(result, tuple) and len(result) == len(leaves), (
        f"autograd.grad returned {type(result).__name__} of length {len(result)} for "
        f"{len(leaves)} inputs")
    expected = finite_difference_grads(program)
    for leaf, grad in zip(leaves, result):
        assert grad_or_none(engine, tensors[leaf.name]) is None, (
            f"autograd.grad filled {leaf.name}.grad")
        assert_close(values_or_none(engine, grad), expected[leaf.name], dtype=program.dtype,
                     oracle="finite-difference", what=f"autograd.grad for {leaf.name}")


@behaviour("GRAD-1")
@needs("autograd_grad")
@given(data=st.data())
def test_autograd_grad_equals_backward_into_fresh_leaves(engine, data):
    """The algebraic oracle: what autograd.grad returns is what backward() accumulates into
    leaves whose .grad was None."""
    program = data.draw(programs(engine), label="program")
    leaves = program.grad_leaves()
    first = build(program, engine, "g = torch.autograd.grad(out, leaves)",
                  "# a second run of the program: out.backward(); compare leaf.grad with g")
    returned = _grad(engine, first[program.output], [first[leaf.name] for leaf in leaves])
    second = program.run_on(engine)
    second[program.output].backward()
    for leaf, grad in zip(leaves, returned):
        assert_close(grad_or_none(engine, second[leaf.name]), values_or_none(engine, grad),
                     dtype=program.dtype, oracle="autograd.grad", what=f"{leaf.name}.grad")


@behaviour("GRAD-2")
@needs("autograd_grad")
@given(data=st.data())
def test_unused_inputs_raise_unless_allowed(engine, data):
    """An input that the output does not depend on makes autograd.grad raise; with
    allow_unused=True its gradient is None and the others are unchanged."""
    program = data.draw(programs(engine), label="program")
    leaves = program.grad_leaves()
    tensors = build(program, engine, "unused = torch.ones(2, requires_grad=True)",
                    "torch.autograd.grad(out, [*leaves, unused], retain_graph=True)  # raises",
                    "torch.autograd.grad(out, [*leaves, unused], allow_unused=True)")
    unused = engine.ns.ones(2, requires_grad=True)
    inputs = [tensors[leaf.name] for leaf in leaves] + [unused]
    out = tensors[program.output]
    with raises_runtime_error():
        _grad(engine, out, inputs, retain_graph=True)
    result = _grad(engine, out, inputs, allow_unused=True)
    assert result[-1] is None, f"allow_unused=True gave {result[-1]!r} for the unused input"
    expected = finite_difference_grads(program)
    for leaf, grad in zip(leaves, result):
        assert_close(values_or_none(engine, grad), expected[leaf.name], dtype=program.dtype,
                     oracle="finite-difference", what=f"autograd.grad for {leaf.name}")


@behaviour("GRAD-4")
@needs("autograd_grad")
@given(data=st.data())
def test_gradients_with_respect_to_intermediates(engine, data):
    """autograd.grad accepts non-leaf inputs: the gradient of out with respect to an intermediate
    (no retain_grad needed)."""
    program = data.draw(programs(engine, candidates=recorded_nodes), label="program")
    name = data.draw(st.sampled_from(recorded_nodes(program)), label="intermediate")
    event(f"gradient with respect to the output itself: {name == program.output}")
    tensors = build(program, engine, f"torch.autograd.grad(out, [{name}])")
    (grad,) = _grad(engine, tensors[program.output], [tensors[name]])
    expected = finite_difference_grads(program, wrt=[name])[name]
    assert_close(values_or_none(engine, grad), expected, dtype=program.dtype,
                 oracle="finite-difference", what=f"autograd.grad for {name}")


@behaviour("JAC-2")
@needs("autograd_grad")
@given(data=st.data())
def test_autograd_grad_of_a_non_scalar_needs_grad_outputs(engine, data):
    """For an output of several elements autograd.grad raises without grad_outputs, and with
    grad_outputs=v returns the vector-Jacobian product v^T J."""
    program = data.draw(programs(engine, output="vector"), label="program")
    leaves = program.grad_leaves()
    v = data.draw(cotangents(program.output_shape(), program.dtype), label="grad_outputs")
    tensors = build(program, engine, "torch.autograd.grad(out, leaves)  # raises",
                    f"torch.autograd.grad(out, leaves, grad_outputs=torch.tensor({v.tolist()}))")
    out, inputs = tensors[program.output], [tensors[leaf.name] for leaf in leaves]
    with raises_runtime_error():
        _grad(engine, out, inputs, retain_graph=True)
    result = _grad(engine, out, inputs, grad_outputs=engine_tensor(engine, v, program.dtype))
    expected = finite_difference_grads(program, v)
    for leaf, grad in zip(leaves, result):
        assert_close(values_or_none(engine, grad), expected[leaf.name], dtype=program.dtype,
                     oracle="finite-difference v^T J", what=f"autograd.grad for {leaf.name}")


@behaviour("RETAIN-2")
@needs("autograd_grad")
@given(data=st.data(), retain=st.booleans())
def test_autograd_grad_frees_the_graph_too(engine, data, retain):
    """autograd.grad frees saved tensors like backward: a second call raises unless the first
    passed retain_graph=True, and then gives the same result."""
    program = data.draw(programs(engine, saves_tensors=True), label="program")
    leaves = program.grad_leaves()
    tensors = build(program, engine, f"torch.autograd.grad(out, leaves, retain_graph={retain})",
                    "torch.autograd.grad(out, leaves)")
    out, inputs = tensors[program.output], [tensors[leaf.name] for leaf in leaves]
    event(f"retain_graph={retain}")
    first = _grad(engine, out, inputs, retain_graph=retain)
    if retain:
        second = _grad(engine, out, inputs)
        for leaf, a, b in zip(leaves, first, second):
            assert_close(values_or_none(engine, b), values_or_none(engine, a),
                         dtype=program.dtype, oracle="the first call",
                         what=f"second autograd.grad for {leaf.name}")
    else:
        with raises_runtime_error():
            _grad(engine, out, inputs)


@behaviour("REQ-12")
@needs("autograd_grad")
@given(data=st.data())
def test_autograd_grad_for_an_input_not_requiring_grad_raises(engine, data):
    """Asking autograd.grad for the gradient of a tensor that does not require grad raises."""
    program = data.draw(programs(engine), label="program")
    plain = [leaf for leaf in program.leaves if not leaf.requires_grad]
    tensors = build(program, engine, "constant = torch.ones(2)",
                    "torch.autograd.grad(out, [constant])  # raises")
    target = tensors[plain[0].name] if plain else engine.ns.ones(2)
    with raises_runtime_error():
        _grad(engine, tensors[program.output], [target], allow_unused=True)


@behaviour("GRAD-8")
@needs("autograd_grad")
@given(data=st.data())
def test_autograd_grad_with_no_inputs_raises(engine, data):
    """autograd.grad(out, []) raises: RuntimeError in torch 2.13, ValueError before."""
    program = data.draw(programs(engine, max_ops=2), label="program")
    tensors = build(program, engine, "torch.autograd.grad(out, [])  # raises")
    with pytest.raises((RuntimeError, ValueError)):
        _grad(engine, tensors[program.output], [])


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
    tensors = build(program, engine, f"out.backward(inputs=[{', '.join(names)}])")
    tensors[program.output].backward(inputs=[tensors[name] for name in names])
    expected = finite_difference_grads(program)
    for leaf in program.leaves:
        grad = grad_or_none(engine, tensors[leaf.name])
        if leaf.name in names:
            assert_close(grad, expected[leaf.name], dtype=program.dtype,
                         oracle="finite-difference", what=f"{leaf.name}.grad")
        else:
            assert grad is None, f"{leaf.name} is not in inputs but got .grad {grad.tolist()}"


# -- higher order ------------------------------------------------------------------------------

def _first_derivative(engine, program, leaf_name, values):
    """d out / d leaf at the leaf's `values` (float64), by the engine's own autograd.grad."""
    given = {leaf_name: engine_tensor(engine, values, "float64", requires_grad=True)}
    tensors = program.run_on(engine, given=given)
    (grad,) = _grad(engine, tensors[program.output], [given[leaf_name]])
    return engine.to_numpy(grad)


def _hvp_by_finite_differences(engine, program, leaf_name, weights):
    """sum_i w_i d g_i / d x_j by central differences of the engine's first derivatives g."""
    return central_differences(
        lambda values: float(np.sum(_first_derivative(engine, program, leaf_name, values)
                                    * weights)),
        program.leaf(leaf_name).values, relative_step=1e-5)


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
    tensors = build(program, engine, f"(g,) = torch.autograd.grad(out, [{name}], create_graph=True)",
                    f"w = torch.tensor({weights.tolist()}, dtype=torch.float64)",
                    f"torch.autograd.grad((g * w).sum(), [{name}], allow_unused=True)")
    x = tensors[name]
    (g,) = _grad(engine, tensors[program.output], [x], create_graph=True)
    expected = _hvp_by_finite_differences(engine, program, name, weights)
    if not g.requires_grad:
        got = np.zeros_like(expected)
    else:
        (second,) = _grad(engine, (g * engine_tensor(engine, weights, "float64")).sum(), [x],
                          allow_unused=True)
        got = np.zeros_like(expected) if second is None else engine.to_numpy(second)
    assert_close(got, expected, dtype="float64",
                 oracle="finite differences of first derivatives", what="second derivative")


@behaviour("HO-2")
@needs("autograd_grad")
@given(data=st.data())
def test_without_create_graph_gradients_are_constants(engine, data):
    """Without create_graph, the gradients autograd.grad returns do not require grad and have no
    grad_fn."""
    program = data.draw(programs(engine), label="program")
    leaves = program.grad_leaves()
    tensors = build(program, engine, "g = torch.autograd.grad(out, leaves)")
    for leaf, grad in zip(leaves, _grad(engine, tensors[program.output],
                                        [tensors[leaf.name] for leaf in leaves])):
        assert not grad.requires_grad and grad.grad_fn is None, (
            f"the gradient for {leaf.name} is part of a graph without create_graph")


@behaviour("HO-3")
@needs("backward_create_graph", "autograd_grad", "float64")  # the oracle uses autograd.grad
@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning")
@given(data=st.data())
def test_backward_with_create_graph_stores_a_differentiable_grad(engine, data):
    """After backward(create_graph=True) the leaf's .grad is differentiable: backward from
    sum(x.grad * w), into a cleared x.grad, gives the Hessian-vector product."""
    program, name, weights = _second_order_case(engine, data)
    tensors = build(program, engine, "out.backward(create_graph=True)",
                    f"g = {name}.grad; {name}.grad = None",
                    f"(g * torch.tensor({weights.tolist()}, dtype=torch.float64)).sum().backward()")
    x = tensors[name]
    tensors[program.output].backward(create_graph=True)
    g = x.grad
    x.grad = None
    expected = _hvp_by_finite_differences(engine, program, name, weights)
    if g.requires_grad:
        (g * engine_tensor(engine, weights, "float64")).sum().backward()
    got = grad_or_none(engine, x)
    got = np.zeros_like(expected) if got is None else got
    assert_close(got, expected, dtype="float64",
                 oracle="finite differences of first derivatives", what=f"{name}.grad")
