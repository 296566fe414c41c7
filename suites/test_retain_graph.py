"""backward() frees the graph's saved tensors; retain_graph=True keeps them (RETAIN-*)."""

import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script
from autograd_conformance.harness.strategies import NON_SAVING_OPS, programs

behaviour = pytest.mark.behaviour


@behaviour("RETAIN-1")
@given(data=st.data())
def test_second_backward_without_retain_graph_raises(engine, data):
    program = data.draw(programs(engine, saves_tensors=True), label="program")
    script = Script(engine)
    script.build(program)
    script.run("out.backward()")
    script.raises("out.backward()")


@behaviour("RETAIN-3")
@given(data=st.data())
def test_second_backward_through_nodes_without_saved_tensors_succeeds(engine, data):
    program = data.draw(programs(engine, ops=NON_SAVING_OPS), label="program")
    script = Script(engine)
    script.build(program)
    script.run("out.backward()",
               "out.backward()  # torch allows this: no node saved a tensor for backward")
    assert_leaf_grads(script, program, analytic_grads(program),
                      oracle="analytic x 2 passes", scale=2)


@behaviour("RETAIN-4")
@given(data=st.data())
def test_retain_graph_allows_another_backward(engine, data):
    program = data.draw(programs(engine, saves_tensors=True), label="program")
    leaves = [leaf.name for leaf in program.grad_leaves()]
    magnitude = analytic_grads(program).magnitude   # the scale of their rounding differences
    script = Script(engine)
    script.build(program)
    # Copies of the first pass's grads: the second pass may accumulate into .grad in place.
    script.run("out.backward(retain_graph=True)",
               *[f"first_{name} = to_numpy({name}.grad).copy()" for name in leaves],
               "out.backward()")
    for name in leaves:
        script.check_agrees(f"{name}.grad", f"2 * first_{name}", dtype=program.dtype,
                            oracle="twice the first pass", magnitude=2 * magnitude)


@behaviour("RETAIN-4")
def test_seed_retain_graph_twice(engine):
    """Seed 000: with retain_graph=True the same graph can be backpropagated again."""
    script = Script(engine)
    script.run("x = torch.tensor([1.0, 2.0], requires_grad=True)",
               "y = (x * x).sum()",
               "y.backward(retain_graph=True)",
               "y.backward()")
    script.check("[x.grad[0].item(), x.grad[1].item()] == [4.0, 8.0]",
                 "x.grad after two passes is {x.grad}, expected [4.0, 8.0]")


@behaviour("RETAIN-1")
def test_seed_second_backward_raises(engine):
    """Seed 000: after loss.backward(), a second loss.backward() on the same graph raises."""
    script = Script(engine)
    script.run("x = torch.tensor([[1.0, 2.0]], requires_grad=True)",
               "y = torch.tensor([[3.0, 4.0], [5.0, 6.0]])",
               "loss = (x @ y).sum()",
               "loss.backward()")
    script.check("[x.grad[0, 0].item(), x.grad[0, 1].item()] == [7.0, 11.0]",
                 "x.grad after one pass is {x.grad}, expected [[7.0, 11.0]]")
    script.raises("loss.backward()")
