"""Which tensors require grad: only floating ones, and op results iff an input does (REQ-*)."""

import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import build, raises_runtime_error, record_reproducer
from autograd_conformance.harness.strategies import programs, shapes

behaviour = pytest.mark.behaviour

int_lists = shapes(min_dims=1).flatmap(
    lambda shape: st.lists(st.integers(-5, 5), min_size=shape[0], max_size=shape[0]))


@behaviour("REQ-1")
@given(values=int_lists)
def test_integer_tensors_cannot_require_grad(ag, values):
    record_reproducer(f"torch.tensor({values!r}, dtype=torch.int64, requires_grad=True)")
    with raises_runtime_error():
        ag.tensor(values, dtype=ag.int64, requires_grad=True)


@behaviour("REQ-1")
@given(values=int_lists)
def test_integer_tensors_cannot_be_switched_to_require_grad(ag, values):
    record_reproducer(f"torch.tensor({values!r}, dtype=torch.int64).requires_grad_()")
    integers = ag.tensor(values, dtype=ag.int64)
    with raises_runtime_error():
        integers.requires_grad_()


@behaviour("REQ-8")
@given(data=st.data())
def test_results_require_grad_iff_an_input_does(engine, data):
    program = data.draw(programs(engine, output="any", requires_grad="mixed"), label="program")
    tensors = build(program, engine)
    for node in program.nodes:
        expected = program.requires_grad(node.name)
        assert bool(tensors[node.name].requires_grad) == expected, (
            f"{node.name} = {node.op}({', '.join(node.args)}) has requires_grad="
            f"{tensors[node.name].requires_grad}, but its inputs' flags make it {expected}")


@behaviour("REQ-10")
@given(data=st.data())
def test_backward_when_nothing_requires_grad_raises(engine, data):
    program = data.draw(programs(engine, requires_grad="none"), label="program")
    tensors = build(program, engine, "out.backward()  # must raise")
    with raises_runtime_error():
        tensors[program.output].backward()


@behaviour("REQ-10")
def test_seed_mean_of_plain_input_cannot_backward(ag):
    """Seed 003: loss = mean(tensor([1, 2, 3])) does not require grad, and backward raises."""
    loss = ag.tensor([1.0, 2.0, 3.0]).mean()
    assert not loss.requires_grad
    with raises_runtime_error():
        loss.backward()
