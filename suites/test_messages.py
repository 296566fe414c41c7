"""Torch's exact error texts (strict level): engines that mimic torch's messages are checked here,
so that users porting code see the errors they know (MSG-*)."""

import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import build, raises_runtime_error
from autograd_conformance.harness.strategies import programs

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs


@behaviour("MSG-1")
@needs("messages")
@given(data=st.data())
def test_second_backward_message(engine, data):
    program = data.draw(programs(engine, saves_tensors=True), label="program")
    out = build(program, engine, "out.backward()", "out.backward()")[program.output]
    out.backward()
    with raises_runtime_error("Trying to backward through the graph a second time"):
        out.backward()


@behaviour("MSG-2")
@needs("messages")
@given(data=st.data())
def test_non_scalar_backward_message(engine, data):
    program = data.draw(programs(engine, output="vector"), label="program")
    out = build(program, engine, "out.backward()")[program.output]
    with raises_runtime_error("grad can be implicitly created only for scalar outputs"):
        out.backward()


@behaviour("MSG-3")
@needs("messages")
@given(data=st.data())
def test_nothing_requires_grad_message(engine, data):
    program = data.draw(programs(engine, requires_grad="none"), label="program")
    out = build(program, engine, "out.backward()")[program.output]
    with raises_runtime_error("element 0 of tensors does not require grad and does not have a "
                              "grad_fn"):
        out.backward()


@behaviour("MSG-4")
@needs("messages")
def test_integer_requires_grad_message(ag):
    with raises_runtime_error("Only Tensors of floating point and complex dtype can require "
                              "gradients"):
        ag.tensor([1, 2], dtype=ag.int64, requires_grad=True)
