"""Gradient values and dtypes against the three oracles used together: float64 central
differences (engine-independent), algebraic relations (elsewhere: linearity in test_jacobian,
accumulation in test_reuse, autograd.grad vs backward in test_autograd_grad), and torch itself
running the same program (differential) where torch is installed; closed forms where the random
programs do not reach: Python numbers as operands, second derivatives, mixed dtypes (VAL-*, BC-3)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_gradients_stop_at, assert_leaf_grads, differential_oracle
from autograd_conformance.harness.ops import DIV_MIN, SATURATION_MAX
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.program import Node, Program
from autograd_conformance.harness.script import Script, literal
from autograd_conformance.harness.strategies import (
    ALL_OPS,
    CURVED_OPS,
    EVEN_SPLIT,
    EXTREMA,
    cotangents,
    programs,
    shapes,
    values,
)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
# The gradient-value tests' op set: with max, min, amax and amin where the engine declares max_min
# (engine_ops), their ties included (OP-9 .. OP-11 inside programs).
VALUE_OPS = ALL_OPS + EXTREMA

# d/dx of `c op x` and of `x op c` for a Python number c, as functions of (c, x).
NUMBER_OPERAND_DERIVATIVES = {
    "+": (lambda c, x: np.ones_like(x), lambda c, x: np.ones_like(x)),
    "-": (lambda c, x: -np.ones_like(x), lambda c, x: np.ones_like(x)),
    "*": (lambda c, x: np.full_like(x, c), lambda c, x: np.full_like(x, c)),
    "/": (lambda c, x: -c / x ** 2, lambda c, x: np.full_like(x, 1.0 / c)),
}


def _torch_values(engine, torch_engine, program):
    """The program's output and its leaves' grads as torch computes them (NumPy arrays): the
    differential oracle. It runs in a Script of its own on torch, made before the test's (whose
    steps are the reproducer), outside the engine's context (torch as itself, even when the
    engine is a mode of torch); its values are read, never checked."""
    with engine.outside_context():
        oracle = Script(torch_engine)
        oracle.build(program)
        out = oracle.value("to_numpy(out)")
        oracle.run("out.backward()")
        grads = {leaf.name: oracle.value(f"to_numpy({leaf.name}.grad)")
                 for leaf in program.grad_leaves()}
    return out, grads


@behaviour("VAL-1")
@needs("float64")
@given(data=st.data())
def test_float64_gradients_are_exact_to_float64_precision(engine, data):
    """Float64 programs' gradients agree with the analytic oracle within the float64 tolerance
    (autograd_conformance/harness/oracles.py: 1e-12), so a step that rounds through float32 fails. Half the programs
    use only the ops with curvature, whose backward formulas compute (and so could round) most."""
    ops = data.draw(st.sampled_from([VALUE_OPS, CURVED_OPS]), label="op set")
    program = data.draw(programs(engine, ops=ops, dtype="float64"), label="program")
    script = Script(engine)
    script.build(program)
    script.run("out.backward()")
    assert_leaf_grads(script, program, analytic_grads(program),
                      oracle="analytic")


@behaviour("VAL-2")
@given(data=st.data())
def test_float32_gradients_match_the_float64_oracle(engine, data):
    """Float32 programs compute in float32 (outputs are float32) and agree with the float64
    analytic oracle within the float32 tolerance (autograd_conformance/harness/oracles.py: 2e-5)."""
    program = data.draw(programs(engine, ops=VALUE_OPS, dtype="float32"), label="program")
    script = Script(engine)
    script.build(program)
    script.check("out.dtype == torch.float32", "a float32 program gave a {out.dtype} output")
    script.check_close("out", program.evaluate()[program.output], dtype="float32",
                       oracle="float64 forward")
    script.run("out.backward()")
    assert_leaf_grads(script, program, analytic_grads(program),
                      oracle="analytic")


def _reduced_by(program: Program, op: str) -> Program:
    """`program` with its output reduced to one element by `op`: sum, or an extreme of every
    element (max, min, amax, amin)."""
    node = Node("reduced", op, (program.output,))
    return Program(program.dtype, program.leaves, program.nodes + (node,), node.name)


@behaviour("BC-3")
@given(data=st.data())
def test_grad_dtype_is_the_leaf_dtype(engine, data):
    """Every .grad (of leaves, and of retained non-leaves) has the dtype of its tensor: every
    node on the output's path that requires grad retains its gradient, so a backward formula
    that hands on a gradient of another dtype shows in the .grad of the node before it. The
    output is reduced by sum or, where the engine has them, by one of the extremes that split
    their gradient among ties (a float32 quotient by an integer count must stay float32)."""
    reductions = ("sum",) + (EVEN_SPLIT if engine.has("max_min") else ())
    program = _reduced_by(data.draw(programs(engine, ops=VALUE_OPS, output="any"),
                                    label="program"),
                          data.draw(st.sampled_from(reductions), label="reduction"))
    used = program.ancestors()
    nodes = [node.name for node in program.nodes
             if node.name in used and program.requires_grad(node.name)]
    script = Script(engine)
    script.build(program)
    script.run(*[f"{name}.retain_grad()" for name in nodes], "out.backward()")
    for leaf in program.grad_leaves():
        script.check(f"{leaf.name}.grad is not None", f"{leaf.name}.grad is None")
        script.check(f"{leaf.name}.grad.dtype == {leaf.name}.dtype == torch.{program.dtype}",
                     f"{leaf.name}.grad does not have {leaf.name}'s dtype, the program's "
                     f"{program.dtype}", show=(f"{leaf.name}.dtype", f"{leaf.name}.grad.dtype"))
    for name in nodes:  # a node's own dtype is the forward pass's business, not this rule's
        script.check(f"{name}.grad is not None", f"{name}.grad is None")
        script.check(f"{name}.grad.dtype == {name}.dtype", f"{name}.grad does not have "
                     f"{name}'s dtype", show=(f"{name}.dtype", f"{name}.grad.dtype"))


@behaviour("BC-3")
@needs("float64", "dtype_conversion")
@given(shape=shapes(), dtype=st.sampled_from(["float32", "float64"]), data=st.data())
def test_a_gradient_through_to_comes_back_in_the_source_dtype(engine, shape, dtype, data):
    """h = tanh(x).to(other dtype): the gradient that crosses .to() is cast back, so the retained
    h.grad and x.grad have x's dtype, with the values w and w (1 - tanh(x)^2) of
    out = sum(h.to(other) * w)."""
    other = "float64" if dtype == "float32" else "float32"
    x = data.draw(values(shape, "float32"), label="x")  # exact in both dtypes, as w
    w = data.draw(values(shape, "float32"), label="w")
    script = Script(engine)
    script.run(f"x = torch.tensor({literal(x)}, dtype=torch.{dtype}, requires_grad=True)",
               f"w = torch.tensor({literal(w)}, dtype=torch.{other})",
               "h = torch.tanh(x)", "h.retain_grad()",
               "out = (h.to(w.dtype) * w).sum()", "out.backward()")
    for name in ("h", "x"):
        script.check(f"{name}.grad is not None and {name}.grad.dtype == torch.{dtype}",
                     f"{name} is {dtype} but its grad is None or of another dtype",
                     show=(f"None if {name}.grad is None else {name}.grad.dtype",))
    # w is exact in either dtype, so the gradient that crosses .to() is too: x's dtype's tolerance
    script.check_close("h.grad", w, dtype=dtype, oracle="w, in h's dtype")
    script.check_close("x.grad", w * (1 - np.tanh(x) ** 2), dtype=dtype,
                       oracle="w (1 - tanh(x)^2)")


@behaviour("VAL-3")
@given(data=st.data())
def test_gradients_match_torch_on_the_same_program(engine, data):
    """Differential oracle: torch, running the same program, gives the same forward value and
    the same gradients (within the dtype's tolerance)."""
    torch_engine = differential_oracle(engine)
    program = data.draw(programs(engine, ops=VALUE_OPS), label="program")
    torch_out, torch_grads = _torch_values(engine, torch_engine, program)
    magnitude = analytic_grads(program).magnitude   # the scale of both engines' rounding
    script = Script(engine)
    script.build(program)
    script.check_close("out", torch_out, dtype=program.dtype, oracle="torch (differential)")
    script.run("out.backward()")
    for leaf in program.grad_leaves():
        script.check_close(f"{leaf.name}.grad", torch_grads[leaf.name], dtype=program.dtype,
                           oracle="torch (differential)", magnitude=magnitude)


@behaviour("VAL-1")
@needs("float64")
@given(shape=shapes(), data=st.data(), op=st.sampled_from(sorted(NUMBER_OPERAND_DERIVATIVES)),
       number_first=st.booleans())
def test_python_number_operands_keep_float64_gradients_exact(engine, shape, data, op,
                                                             number_first):
    """c op x and x op c, for a Python number c and a float64 tensor x (the random programs
    combine tensors only): ((c op x) * w).sum() has the gradient w * d(c op x)/dx within the
    float64 tolerance."""
    x = data.draw(values(shape, "float64"), label="x")
    x = np.where(x < 0, x - DIV_MIN, x + DIV_MIN)   # away from the pole of c / x
    w = data.draw(values(shape, "float64"), label="w")
    c = data.draw(st.sampled_from([-1.0, 1.0]), label="sign") * data.draw(
        st.floats(DIV_MIN, 3.0), label="|c|")
    expression = f"{c!r} {op} x" if number_first else f"x {op} {c!r}"
    derivative = NUMBER_OPERAND_DERIVATIVES[op][0 if number_first else 1](c, x)
    script = Script(engine)
    script.run(f"x = torch.tensor({literal(x)}, dtype=torch.float64, requires_grad=True)",
               f"w = torch.tensor({literal(w)}, dtype=torch.float64)",
               f"(({expression}) * w).sum().backward()")
    script.check_close("x.grad", w * derivative, dtype="float64",
                       oracle=f"w * d({expression})/dx")


@behaviour("VAL-4")
@needs("float64", "autograd_grad", "higher_order")
@given(rows=st.integers(1, 3), columns=st.integers(1, 3),
       reduction=st.sampled_from(["sum", "mean"]), data=st.data())
def test_float64_second_derivatives_are_exact_to_float64_precision(engine, rows, columns,
                                                                   reduction, data):
    """For f(x) = tanh(x.sum(dim=0)).sum() (or with mean) in float64, the gradient g taken with
    create_graph=True and the Hessian-vector product (g's vector-Jacobian product with v) agree
    with their closed forms within the float64 tolerance: no step of the double backward rounds
    through float32 (the finite-difference check of HO-1 is too coarse to tell)."""
    x = data.draw(values((rows, columns), "float64", bound=SATURATION_MAX / 3), label="x")
    v = data.draw(cotangents((rows, columns), "float64"), label="v")
    scale = 1.0 if reduction == "sum" else 1.0 / rows
    t = np.tanh(scale * x.sum(axis=0))
    gradient = np.broadcast_to(scale * (1.0 - t ** 2), x.shape)
    hessian_v = np.broadcast_to(scale ** 2 * -2.0 * t * (1.0 - t ** 2) * v.sum(axis=0), x.shape)
    script = Script(engine)
    script.run(f"x = torch.tensor({literal(x)}, dtype=torch.float64, requires_grad=True)",
               f"v = torch.tensor({literal(v)}, dtype=torch.float64)",
               f"g, = torch.autograd.grad(torch.tanh(x.{reduction}(dim=0)).sum(), x, "
               "create_graph=True)")
    script.check_close("g", gradient, dtype="float64", oracle="closed form of df/dx")
    script.run("hv, = torch.autograd.grad(g, x, grad_outputs=v)")
    script.check_close("hv", hessian_v, dtype="float64", oracle="closed form of H v")


@behaviour("BC-3")
@needs("float64")
@pytest.mark.parametrize("create_graph", [
    False, pytest.param(True, marks=needs("autograd_grad", "higher_order"))])
@given(shape=shapes(), data=st.data())
def test_mixed_dtype_gradients_keep_each_tensor_dtype(engine, create_graph, shape, data):
    """h = tanh(x) in float32 times w in float64 promotes to float64, but every gradient keeps
    its tensor's dtype: float32 for x and for the non-leaf h, float64 for w, as .grad after
    backward (h retained) and as autograd.grad's results with create_graph=True alike."""
    x = data.draw(values(shape, "float32"), label="x")
    w = data.draw(values(shape, "float64"), label="w")
    script = Script(engine)
    script.run(f"x = torch.tensor({literal(x)}, dtype=torch.float32, requires_grad=True)",
               f"w = torch.tensor({literal(w)}, dtype=torch.float64, requires_grad=True)",
               "h = torch.tanh(x)", "out = (h * w).sum()")
    script.check("out.dtype == torch.float64", "float32 * float64 gave {out.dtype}")
    if create_graph:
        script.run("grads = dict(zip('xhw', torch.autograd.grad(out, (x, h, w), "
                   "create_graph=True)))")
    else:
        script.run("h.retain_grad()", "out.backward()",
                   "grads = {'x': x.grad, 'h': h.grad, 'w': w.grad}")
    for name, dtype in (("x", "float32"), ("h", "float32"), ("w", "float64")):
        script.check(f"grads[{name!r}].dtype == torch.{dtype}",
                     f"{name} is {dtype} but its gradient is not", show=(f"grads[{name!r}].dtype",))


# -- leaving autograd and coming back: numpy(), tolist(), tensor(t) (MISC-7, MISC-8) ----------

def _requiring_variable(data, program):
    """A drawn leaf or node of `program` that requires grad."""
    names = [leaf.name for leaf in program.leaves] + [node.name for node in program.nodes]
    return data.draw(st.sampled_from([name for name in names if program.requires_grad(name)]),
                     label="tensor")


@behaviour("MISC-7")
@needs("conversions")
@given(data=st.data())
def test_numpy_refuses_a_tensor_that_requires_grad(engine, data):
    """t.numpy() raises RuntimeError for a t that requires grad, t.detach().numpy() gives its
    values, and so do t.tolist() and, for one element e of it, e.item(), int(e) and bool(e)."""
    program = data.draw(programs(engine, output="any"), label="program")
    name = _requiring_variable(data, program)
    shape = program.evaluate()[name].shape
    script = Script(engine)
    script.build(program)
    script.raises(f"{name}.numpy()")
    with script.control():
        script.run(f"array = {name}.detach().numpy()")
        script.check(f"np.array_equal(array, to_numpy({name}))",
                     f"{name}.detach().numpy() does not hold {name}'s values", show=("array",))
    script.check(f"{name}.tolist() == array.tolist()",
                 f"{name}.tolist() does not give the values of {name}.detach().numpy()",
                 show=(f"{name}.tolist()", "array.tolist()"))
    script.run(f"e = {name}.reshape(({int(np.prod(shape))},))[0]", "first = array.reshape(-1)[0]")
    script.check("e.item() == first and int(e) == int(first) and bool(e) == bool(first)",
                 "for an element e of value {first}: e.item()={e.item()}, int(e)={int(e)}, "
                 "bool(e)={bool(e)}")


@behaviour("MISC-8")
@needs("conversions", "inplace")
@pytest.mark.filterwarnings("ignore:To copy construct from a tensor:UserWarning")
@given(data=st.data(), requires_grad=st.booleans())
def test_tensor_of_a_tensor_is_a_detached_copy(engine, data, requires_grad):
    """c = tensor(t) for a t that requires grad is t.clone().detach(): a leaf of t's dtype and
    values that does not require grad, whose in-place changes t does not see. With
    requires_grad=True it is a leaf that requires grad: backward from it fills c.grad and reaches
    none of the leaves t was computed from."""
    program = data.draw(programs(engine, output="any"), label="program")
    name = _requiring_variable(data, program)
    shape, dtype = program.evaluate()[name].shape, program.dtype
    w = data.draw(values(shape, dtype), label="w")
    flag = ", requires_grad=True" if requires_grad else ""
    script = Script(engine)
    script.build(program)
    script.run(f"before = to_numpy({name}).copy()", f"c = torch.tensor({name}{flag})")
    script.check(f"c.is_leaf and c.grad_fn is None and c.requires_grad == {requires_grad}",
                 f"torch.tensor({name}{flag}) is not a leaf with requires_grad {requires_grad}",
                 show=("c.is_leaf", "c.grad_fn", "c.requires_grad"))
    script.check(f"c.dtype == {name}.dtype and np.array_equal(to_numpy(c), before)",
                 f"torch.tensor({name}) has other values or dtype than {name}")
    if requires_grad:
        assert_gradients_stop_at(script, program, "c", w, f"torch.tensor({name})")
    else:
        script.run("c.mul_(0.0)")
        script.check(f"np.array_equal(to_numpy({name}), before)",
                     f"changing torch.tensor({name}) in place changed {name}: it shares storage")
