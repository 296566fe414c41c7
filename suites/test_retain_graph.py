"""backward() frees the graph's saved tensors; retain_graph=True keeps them (RETAIN-*)."""

import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads, build, grad_or_none, raises_runtime_error
from autograd_conformance.harness.oracles import finite_difference_grads
from autograd_conformance.harness.strategies import NON_SAVING_OPS, programs

behaviour = pytest.mark.behaviour


@behaviour("RETAIN-1")
@given(data=st.data())
def test_second_backward_without_retain_graph_raises(engine, data):
    program = data.draw(programs(engine, saves_tensors=True), label="program")
    tensors = build(program, engine, "out.backward()", "out.backward()  # must raise")
    out = tensors[program.output]
    out.backward()
    with raises_runtime_error():
        out.backward()


@behaviour("RETAIN-3")
@given(data=st.data())
def test_second_backward_through_nodes_without_saved_tensors_succeeds(engine, data):
    program = data.draw(programs(engine, ops=NON_SAVING_OPS), label="program")
    tensors = build(program, engine, "out.backward()", "out.backward()  # torch allows this")
    out = tensors[program.output]
    out.backward()
    out.backward()
    expected = finite_difference_grads(program)
    assert_leaf_grads(engine, program, tensors, expected,
                      oracle="finite-difference x 2 passes", scale=2)


@behaviour("RETAIN-4")
@given(data=st.data())
def test_retain_graph_allows_another_backward(engine, data):
    program = data.draw(programs(engine, saves_tensors=True), label="program")
    tensors = build(program, engine, "out.backward(retain_graph=True)", "out.backward()")
    out = tensors[program.output]
    out.backward(retain_graph=True)
    once = {leaf.name: grad_or_none(engine, tensors[leaf.name]) for leaf in program.grad_leaves()}
    out.backward()
    assert_leaf_grads(engine, program, tensors, once, oracle="twice the first pass", scale=2)


@behaviour("RETAIN-4")
def test_seed_retain_graph_twice(ag):
    """Seed 000: with retain_graph=True the same graph can be backpropagated again."""
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert [x.grad[0].item(), x.grad[1].item()] == [4.0, 8.0]


@behaviour("RETAIN-1")
def test_seed_second_backward_raises(ag):
    """Seed 000: after loss.backward(), a second loss.backward() on the same graph raises."""
    x = ag.tensor([[1.0, 2.0]], requires_grad=True)
    y = ag.tensor([[3.0, 4.0], [5.0, 6.0]])
    loss = (x @ y).sum()
    loss.backward()
    assert [x.grad[0, 0].item(), x.grad[0, 1].item()] == [7.0, 11.0]
    with raises_runtime_error():
        loss.backward()
