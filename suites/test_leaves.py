"""Leaves keep their gradients, non-leaves do not, unless retain_grad() asks for it (LEAF-*)."""

import numpy as np
import pytest
from hypothesis import event, given, strategies as st

from autograd_conformance.harness.checks import build, grad_or_none, record_reproducer, shape_of
from autograd_conformance.harness.oracles import assert_close, finite_difference_grads
from autograd_conformance.harness.strategies import programs, recorded_nodes

behaviour = pytest.mark.behaviour


@behaviour("LEAF-1")
@given(data=st.data())
def test_created_tensors_are_leaves(engine, data):
    program = data.draw(programs(engine, max_ops=1), label="program")
    tensors = build(program, engine)
    for leaf in program.leaves:
        tensor = tensors[leaf.name]
        assert tensor.is_leaf, f"{leaf.name} was created by the user but is_leaf is False"
        assert tensor.grad_fn is None, f"{leaf.name} is a leaf but has grad_fn {tensor.grad_fn!r}"


@behaviour("LEAF-3")
@given(data=st.data())
def test_results_requiring_grad_are_non_leaves(engine, data):
    program = data.draw(programs(engine), label="program")
    tensors = build(program, engine)
    for node in program.nodes:
        if program.requires_grad(node.name):
            tensor = tensors[node.name]
            assert not tensor.is_leaf, f"{node.name} = {node.op}(...) requires grad but is a leaf"
            assert tensor.grad_fn is not None, f"{node.name} = {node.op}(...) has no grad_fn"


@behaviour("LEAF-5")
@given(data=st.data())
def test_leaf_grads_are_kept_with_leaf_shape_and_dtype(engine, data):
    program = data.draw(programs(engine), label="program")
    tensors = build(program, engine, "out.backward()")
    tensors[program.output].backward()
    expected = finite_difference_grads(program)
    for leaf in program.grad_leaves():
        tensor = tensors[leaf.name]
        grad = grad_or_none(engine, tensor)
        assert grad is not None, f"{leaf.name} requires grad and takes part, but .grad is None"
        assert shape_of(tensor.grad) == leaf.values.shape, (
            f"{leaf.name}.grad has shape {shape_of(tensor.grad)}, leaf has {leaf.values.shape}")
        assert tensor.grad.dtype == tensor.dtype, (
            f"{leaf.name}.grad has dtype {tensor.grad.dtype}, leaf has {tensor.dtype}")
        assert_close(grad, expected[leaf.name], dtype=program.dtype, oracle="finite-difference",
                     what=f"{leaf.name}.grad")


@behaviour("LEAF-5")
def test_seed_mean_of_squares(ag):
    """Seed 001: a = [2, 3]; out = ((a + 3) ** 2 * 3).mean() is 91.5 and a.grad is [15, 18]."""
    record_reproducer("a = torch.tensor([2., 3.], requires_grad=True)\n"
                      "out = ((a + 3) ** 2 * 3).mean()\nout.backward()")
    a = ag.tensor([2.0, 3.0], requires_grad=True)
    out = ((a + 3) ** 2 * 3).mean()
    assert out.item() == 91.5
    out.backward()
    assert a.grad is not None and a.grad.numel() == 2
    assert [a.grad[0].item(), a.grad[1].item()] == [15.0, 18.0]


@behaviour("LEAF-5", "LEAF-6")
def test_seed_w_x_product(engine, ag):
    """Seed 002: w = 1, x = 2, y = (w + x) * (w + 1) gives w.grad == 5, x.grad == 2, and the
    intermediate a = w + x keeps no gradient."""
    record_reproducer("w = torch.tensor([1.], requires_grad=True)\n"
                      "x = torch.tensor([2.], requires_grad=True)\n"
                      "a = w + x\nb = w + 1\ny = a * b\ny.backward()")
    w = ag.tensor([1.0], requires_grad=True)
    x = ag.tensor([2.0], requires_grad=True)
    a = w + x
    b = w + 1
    y = a * b
    y.backward()
    assert w.grad is not None, "w.grad is None"
    assert x.grad is not None, "x.grad is None"
    assert w.grad.item() == 5.0 and x.grad.item() == 2.0
    assert grad_or_none(engine, a) is None and grad_or_none(engine, b) is None


@behaviour("LEAF-6")
@given(data=st.data())
def test_non_leaf_grads_are_freed(engine, data):
    program = data.draw(programs(engine), label="program")
    tensors = build(program, engine, "out.backward()")
    tensors[program.output].backward()
    for node in program.nodes:
        grad = grad_or_none(engine, tensors[node.name])
        assert grad is None, f"non-leaf {node.name} = {node.op}(...) kept .grad {grad.tolist()}"


@behaviour("LEAF-8")
@given(data=st.data())
def test_retain_grad_keeps_a_non_leaf_gradient(engine, data):
    program = data.draw(programs(engine, output="any", candidates=recorded_nodes),
                        label="program")
    retained = data.draw(st.sampled_from(recorded_nodes(program)), label="retained")
    event(f"retained the output itself: {retained == program.output}")
    tensors = build(program, engine, f"{retained}.retain_grad()", "out.sum().backward()")
    tensors[retained].retain_grad()
    tensors[program.output].sum().backward()
    ones = np.ones(program.evaluate()[program.output].shape)
    expected = finite_difference_grads(program, ones, wrt=[retained])[retained]
    grad = grad_or_none(engine, tensors[retained])
    assert grad is not None, f"{retained}.retain_grad() was called but its .grad is None"
    assert_close(grad, expected, dtype=program.dtype, oracle="finite-difference",
                 what=f"{retained}.grad")


@behaviour("REQ-9")
@given(data=st.data())
def test_leaves_not_requiring_grad_keep_none(engine, data):
    program = data.draw(programs(engine, requires_grad="mixed"), label="program")
    tensors = build(program, engine, "out.backward()")
    tensors[program.output].backward()
    for leaf in program.leaves:
        if not leaf.requires_grad:
            grad = grad_or_none(engine, tensors[leaf.name])
            assert grad is None, f"{leaf.name} does not require grad but got .grad {grad.tolist()}"


@behaviour("MISC-3")
@given(data=st.data())
def test_leaves_not_taking_part_keep_none(engine, data):
    program = data.draw(programs(engine, requires_grad="all"), label="program")
    tensors = build(program, engine, "bystander = torch.ones(2, requires_grad=True)",
                    "out.backward()")
    bystander = engine.ns.ones(2, requires_grad=True)
    tensors[program.output].backward()
    unused = [leaf for leaf in program.leaves if leaf.name not in program.ancestors()]
    for tensor, name in [(bystander, "bystander")] + [(tensors[l.name], l.name) for l in unused]:
        grad = grad_or_none(engine, tensor)
        assert grad is None, f"{name} takes no part in the output but got .grad {grad.tolist()}"


@behaviour("LEAF-8")
def test_seed_retain_grad_on_intermediate(engine, ag):
    """Seed 002: with a.retain_grad(), y = (w + x) * (w + 1) keeps a.grad == 2 (= w + 1), while
    b = w + 1 keeps none."""
    record_reproducer("w = torch.tensor([1.], requires_grad=True)\n"
                      "x = torch.tensor([2.], requires_grad=True)\n"
                      "a = w + x\na.retain_grad()\nb = w + 1\ny = a * b\ny.backward()")
    w = ag.tensor([1.0], requires_grad=True)
    x = ag.tensor([2.0], requires_grad=True)
    a = w + x
    a.retain_grad()
    b = w + 1
    y = a * b
    y.backward()
    assert [leaf.is_leaf for leaf in (w, x, a, b, y)] == [True, True, False, False, False]
    assert a.grad is not None, "a.grad is None"
    assert a.grad.item() == 2.0, f"a.grad is {grad_or_none(engine, a)}"
    assert grad_or_none(engine, b) is None and grad_or_none(engine, y) is None
    assert w.grad is not None, "w.grad is None"
    assert x.grad is not None, "x.grad is None"
    assert w.grad.item() == 5.0 and x.grad.item() == 2.0
