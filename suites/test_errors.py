"""Misused backward calls raise RuntimeError: a gradient whose shape is not the output's
(JAC-11, MSG-8). The other error cases of the issue are pinned elsewhere: non-scalar backward
without gradient (JAC-1, MSG-2), nothing requires grad (REQ-10, MSG-3), second backward
(RETAIN-1, MSG-1)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import build, engine_tensor, grad_or_none, raises_runtime_error
from autograd_conformance.harness.strategies import cotangents, programs

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs


def _wrong_shapes(shape):
    """Shapes other than `shape` (extra dim, dropped dim, reversed, one more element)."""
    options = {shape + (1,), (1,) + shape, tuple(reversed(shape)), (int(sum(shape)) + 1,)}
    if shape:
        options.add(shape[1:])
    return sorted(option for option in options if option != shape)


@behaviour("JAC-11")
@given(data=st.data())
def test_gradient_of_the_wrong_shape_raises(engine, data):
    """backward(gradient) with a gradient whose shape differs from the output's raises
    RuntimeError, even when it would broadcast, and accumulates nothing."""
    program = data.draw(programs(engine, output="any"), label="program")
    wrong = data.draw(st.sampled_from(_wrong_shapes(program.output_shape())), label="shape")
    gradient = data.draw(cotangents(wrong, program.dtype), label="gradient")
    tensors = build(program, engine,
                    f"out.backward(torch.ones({wrong}, dtype=torch.{program.dtype}))  # raises")
    with raises_runtime_error():
        tensors[program.output].backward(engine_tensor(engine, gradient, program.dtype))
    for leaf in program.grad_leaves():
        assert grad_or_none(engine, tensors[leaf.name]) is None, (
            f"{leaf.name}.grad was filled by a backward that raised")


@behaviour("MSG-8")
@needs("messages")
@given(data=st.data())
def test_gradient_shape_message(engine, data):
    program = data.draw(programs(engine, output="vector"), label="program")
    wrong = program.output_shape() + (1,)
    tensors = build(program, engine, f"out.backward(torch.ones({wrong}))")
    with raises_runtime_error("Mismatch in shape: grad_output[0] has a shape of"):
        tensors[program.output].backward(engine_tensor(engine, np.ones(wrong), program.dtype))
