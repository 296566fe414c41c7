"""In-place operations: refused on leaves that require grad, recorded on non-leaves, checked
against the version counter at backward time; index assignment (INP-*, MSG-6, MSG-7)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import (assert_leaf_grads, build, engine_tensor,
                                                 raises_runtime_error, record_reproducer)
from autograd_conformance.harness.oracles import finite_difference_grads
from autograd_conformance.harness.strategies import cotangents, programs, shapes, values

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs

LEAF_CHANGES = {
    "add_(1.0)": lambda t, ag: t.add_(1.0),
    "mul_(2.0)": lambda t, ag: t.mul_(2.0),
    "zero_()": lambda t, ag: t.zero_(),
    "copy_(torch.zeros_like(x))": lambda t, ag: t.copy_(ag.zeros_like(t)),
}
VERSION_MESSAGE = ("one of the variables needed for gradient computation has been modified by an "
                   "inplace operation")


def _copy_of_output(engine, program, tensors):
    """y = out + 0.0: a non-leaf that no node has saved, to modify in place."""
    return tensors[program.output] + 0.0


@behaviour("INP-1")
@needs("inplace")
@given(data=st.data(), change=st.sampled_from(sorted(LEAF_CHANGES)))
def test_in_place_on_a_leaf_requiring_grad_raises(engine, data, change):
    """Any in-place op on a leaf that requires grad raises RuntimeError (in grad mode) and leaves
    its values alone."""
    program = data.draw(programs(engine, requires_grad="all", max_ops=1), label="program")
    leaf = data.draw(st.sampled_from(program.leaves), label="leaf")
    tensors = build(program, engine, f"{leaf.name}.{change}  # must raise")
    x = tensors[leaf.name]
    with raises_runtime_error():
        LEAF_CHANGES[change](x, engine.ns)
    assert np.array_equal(engine.to_numpy(x), leaf.values.astype(engine.to_numpy(x).dtype))


@behaviour("MSG-6")
@needs("inplace", "messages")
def test_leaf_in_place_message(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    with raises_runtime_error("a leaf Variable that requires grad is being used in an in-place "
                              "operation."):
        x.add_(1.0)


@behaviour("INP-3")
@needs("inplace")
@given(shape=shapes(min_dims=1), data=st.data())
def test_index_assignment_into_a_leaf_requiring_grad_raises(ag, shape, data):
    """n[i] = v into a tensor created with requires_grad=True raises RuntimeError."""
    index = data.draw(st.integers(0, shape[0] - 1), label="index")
    record_reproducer(f"n = torch.zeros{shape!r}.requires_grad_()\n"
                      f"m = torch.tensor(2.0, requires_grad=True)\nn[{index}] = m ** 2")
    n = ag.zeros(*shape, requires_grad=True)
    m = ag.tensor(2.0, requires_grad=True)
    with raises_runtime_error():
        n[index] = m ** 2


@behaviour("INP-4")
@needs("inplace")
@given(shape=shapes(min_dims=1), data=st.data(), under_no_grad=st.booleans())
def test_in_place_on_leaves_is_allowed_without_grad(engine, ag, shape, data, under_no_grad):
    """In-place ops are fine on a leaf that does not require grad, and on one that does inside
    no_grad; the leaf stays a leaf and holds the new values."""
    start = data.draw(values(shape, "float32"), label="values")
    record_reproducer(f"x = torch.tensor({start.tolist()!r}, requires_grad={under_no_grad})\n"
                      + ("with torch.no_grad():\n    " if under_no_grad else "")
                      + "x.mul_(2.0); x.add_(1.0)")
    x = ag.tensor(start.tolist(), requires_grad=under_no_grad)
    if under_no_grad:
        with ag.no_grad():
            x.mul_(2.0)
            x.add_(1.0)
    else:
        x.mul_(2.0)
        x.add_(1.0)
    assert x.is_leaf and x.grad_fn is None and bool(x.requires_grad) == under_no_grad
    assert np.allclose(engine.to_numpy(x), start * 2 + 1), "the in-place ops did not apply"


@behaviour("INP-5")
@needs("inplace")
@given(data=st.data(), saved=st.sampled_from(["result", "input"]))
def test_modifying_a_saved_tensor_makes_backward_raise(engine, data, saved):
    """If a tensor that a node saved for backward is modified in place, backward raises
    RuntimeError: a saved result (y = tanh(out)) or a saved input (z = y * y)."""
    program = data.draw(programs(engine, output="any", max_ops=3), label="program")
    tensors = build(program, engine,
                    "y = torch.tanh(out); y.add_(1.0); y.sum().backward()" if saved == "result"
                    else "y = out + 0.0; z = y * y; y.add_(1.0); z.sum().backward()")
    if saved == "result":
        y = engine.ns.tanh(tensors[program.output])
        root = y
    else:
        y = _copy_of_output(engine, program, tensors)
        root = y * y
    y.add_(1.0)
    with raises_runtime_error():
        root.sum().backward()


@behaviour("MSG-7")
@needs("inplace", "messages")
def test_version_counter_message(ag):
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = ag.exp(x)
    y.add_(1.0)
    with raises_runtime_error(VERSION_MESSAGE):
        y.sum().backward()


@behaviour("INP-9", "INP-11")
@needs("inplace")
@given(data=st.data())
def test_in_place_ops_on_a_non_leaf_are_differentiated(engine, data):
    """In-place ops on a non-leaf that no node saved are recorded: y = out + 0; y.mul_(a);
    y.add_(b) gives the gradients of a * out + b, and y stays a non-leaf."""
    program = data.draw(programs(engine, output="any"), label="program")
    shape = program.output_shape()
    a = data.draw(values(shape, program.dtype, bound=2.0), label="a")
    b = data.draw(values(shape, program.dtype, bound=2.0), label="b")
    scalar = data.draw(st.sampled_from([1.0, -2.0, 0.5]), label="scalar")
    tensors = build(program, engine, f"a = torch.tensor({a.tolist()})",
                    f"b = torch.tensor({b.tolist()})",
                    f"y = out + 0.0; y.mul_(a); y.add_(b); y.mul_({scalar}); y.sum().backward()")
    y = _copy_of_output(engine, program, tensors)
    y.mul_(engine_tensor(engine, a, program.dtype))
    y.add_(engine_tensor(engine, b, program.dtype))
    y.mul_(scalar)
    assert not y.is_leaf and y.grad_fn is not None, "y lost its grad_fn after in-place ops"
    assert np.allclose(engine.to_numpy(y), (program.evaluate()[program.output] * a + b) * scalar,
                       rtol=1e-3, atol=1e-3), "the in-place ops computed wrong values"
    y.sum().backward()
    expected = finite_difference_grads(program, a * scalar)
    assert_leaf_grads(engine, program, tensors, expected,
                      oracle="finite-difference of (a * out + b) * s")


@behaviour("INP-10")
@needs("inplace")
@given(steps=st.lists(st.sampled_from(["add_", "mul_", "zero_", "setitem", "out-of-place"]),
                      min_size=1, max_size=6))
def test_version_counts_in_place_ops(ag, steps):
    """_version is incremented by every in-place op (index assignment included); ops that return
    new tensors leave it unchanged. The docs promise an increment, not its size."""
    record_reproducer("t = torch.zeros(3)\n" + "\n".join(steps) + "\nt._version")
    t = ag.zeros(3)
    for step in steps:
        before = t._version
        if step == "add_":
            t.add_(1.0)
        elif step == "mul_":
            t.mul_(2.0)
        elif step == "zero_":
            t.zero_()
        elif step == "setitem":
            t[0] = 5.0
        else:
            t + 1.0
            assert t._version == before, f"{step} changed _version from {before} to {t._version}"
            continue
        assert t._version > before, f"{step} left _version at {t._version} (was {before})"


@behaviour("INP-12")
@needs("inplace")
@given(data=st.data())
def test_overwritten_elements_get_zero_gradient(engine, data):
    """y[i] = constant on a non-leaf is recorded: element i no longer depends on the inputs, so
    the gradients are those of the program with row i of the cotangent zeroed."""
    program = data.draw(programs(engine, output="vector"), label="program")
    shape = program.output_shape()
    row = data.draw(st.integers(0, shape[0] - 1), label="row")
    tensors = build(program, engine, f"y = out + 0.0; y[{row}] = 7.0; y.sum().backward()")
    y = _copy_of_output(engine, program, tensors)
    y[row] = 7.0
    assert not y.is_leaf and y.requires_grad
    y.sum().backward()
    weights = np.ones(shape)
    weights[row] = 0.0
    expected = finite_difference_grads(program, weights)
    assert_leaf_grads(engine, program, tensors, expected,
                      oracle=f"finite-difference with row {row} cut")


@behaviour("INP-14")
@needs("inplace")
@given(data=st.data())
def test_index_assignment_into_zeros_gives_the_right_gradients(engine, data):
    """The seeds' pattern on random programs: n = zeros(k); n[p] = out * c_p for some positions;
    n.backward(v) gives sum_p v_p c_p times the program's gradients."""
    program = data.draw(programs(engine), label="program")
    size = data.draw(st.integers(1, 4), label="k")
    factors = data.draw(st.dictionaries(st.integers(0, size - 1),
                                        st.sampled_from([1.0, 2.0, -1.0, 0.5]), min_size=1),
                        label="positions and factors")
    v = data.draw(cotangents((size,), program.dtype), label="gradient")
    tensors = build(program, engine, f"n = torch.zeros({size}, dtype=torch.{program.dtype})",
                    *[f"n[{p}] = out.reshape(()) * {c}" for p, c in factors.items()],
                    f"n.backward(torch.tensor({v.tolist()}))")
    out = tensors[program.output].reshape(())
    n = engine.ns.zeros(size, dtype=getattr(engine.ns, program.dtype))
    for position, factor in factors.items():
        n[position] = out * factor
    assert not n.is_leaf and n.requires_grad, "n did not join the graph after index assignment"
    n.backward(engine_tensor(engine, v, program.dtype))
    weight = sum(v[p] * c for p, c in factors.items())
    expected = finite_difference_grads(program)
    assert_leaf_grads(engine, program, tensors, expected,
                      oracle=f"finite-difference x {weight:.4g}", scale=weight)


@behaviour("INP-16")
@needs("inplace")
@given(data=st.data())
def test_in_place_with_an_operand_requiring_grad_joins_the_graph(engine, data):
    """a.add_(x) where a is a plain leaf and x requires grad makes a a non-leaf that requires
    grad, and backward through a reaches x."""
    program = data.draw(programs(engine, output="any", requires_grad="all"), label="program")
    shape = program.output_shape()
    tensors = build(program, engine, f"a = torch.zeros({shape})", "a.add_(out)",
                    "a.sum().backward()")
    a = engine.ns.zeros(*shape, dtype=getattr(engine.ns, program.dtype)) if shape else \
        engine_tensor(engine, np.zeros(()), program.dtype)
    a.add_(tensors[program.output])
    assert not a.is_leaf and a.requires_grad and a.grad_fn is not None, (
        "a.add_(out) with out requiring grad left a as a plain leaf")
    a.sum().backward()
    expected = finite_difference_grads(program, np.ones(shape))
    assert_leaf_grads(engine, program, tensors, expected, oracle="finite-difference")
