"""Torch's exact error texts (strict level): engines that mimic torch's messages are checked here,
so that users porting code see the errors they know (MSG-*)."""

import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.script import Script
from autograd_conformance.harness.strategies import programs

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
pytestmark = needs("messages")


@behaviour("MSG-1")
@given(data=st.data())
def test_second_backward_message(engine, data):
    program = data.draw(programs(engine, saves_tensors=True), label="program")
    script = Script(engine)
    script.build(program)
    script.run("out.backward()")
    script.raises("out.backward()", "Trying to backward through the graph a second time")


@behaviour("MSG-2")
@given(data=st.data())
def test_non_scalar_backward_message(engine, data):
    program = data.draw(programs(engine, output="vector"), label="program")
    script = Script(engine)
    script.build(program)
    script.raises("out.backward()", "grad can be implicitly created only for scalar outputs")


@behaviour("MSG-3")
@given(data=st.data())
def test_nothing_requires_grad_message(engine, data):
    program = data.draw(programs(engine, requires_grad="none"), label="program")
    script = Script(engine)
    script.build(program)
    script.raises("out.backward()", "element 0 of tensors does not require grad and does not have "
                                    "a grad_fn")


@behaviour("MSG-4")
def test_integer_requires_grad_message(engine):
    script = Script(engine)
    script.raises("torch.tensor([1, 2], dtype=torch.int64, requires_grad=True)",
                  "Only Tensors of floating point and complex dtype can require gradients")


@behaviour("MSG-8")
@given(data=st.data())
def test_gradient_shape_message(engine, data):
    program = data.draw(programs(engine, output="vector"), label="program")
    wrong = program.output_shape() + (1,)
    script = Script(engine)
    script.build(program)
    sizes = ", ".join(str(size) for size in wrong)
    script.raises(f"out.backward(torch.ones({sizes}, dtype=torch.{program.dtype}))",
                  "Mismatch in shape: grad_output[0] has a shape of")
