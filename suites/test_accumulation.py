"""Gradients accumulate into .grad until they are zeroed, by any of the documented ways (ACC-*)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import build, grad_or_none
from autograd_conformance.harness.oracles import assert_close, finite_difference_grads
from autograd_conformance.harness.strategies import programs

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs


def _grads(engine, program, tensors):
    return {leaf.name: grad_or_none(engine, tensors[leaf.name]) for leaf in program.grad_leaves()}


@behaviour("ACC-1")
@given(data=st.data())
def test_k_backward_passes_accumulate_k_times(engine, data):
    program = data.draw(programs(engine), label="program")
    passes = data.draw(st.integers(2, 4), label="backward passes")
    tensors = build(program, engine, *["out.backward(retain_graph=True)"] * passes)
    for _ in range(passes):
        tensors[program.output].backward(retain_graph=True)
    expected = finite_difference_grads(program)
    for name, grad in _grads(engine, program, tensors).items():
        assert grad is not None, f"{name}.grad is None after {passes} backward passes"
        assert_close(grad, passes * expected[name], dtype=program.dtype,
                     oracle=f"finite-difference x {passes} passes", what=f"{name}.grad")


def _check_one_pass_after_reset(engine, program, reset_line, reset, check_reset):
    """backward, reset every leaf's .grad (`reset`, printed as `reset_line`), backward again:
    the grads must be one pass's, as if the first pass had never happened."""
    leaves = program.grad_leaves()
    tensors = build(program, engine, "out.backward(retain_graph=True)",
                    *[reset_line.format(leaf.name) for leaf in leaves], "out.backward()")
    out = tensors[program.output]
    out.backward(retain_graph=True)
    for leaf in leaves:
        reset(tensors[leaf.name])
        check_reset(leaf.name, tensors[leaf.name])
    out.backward()
    expected = finite_difference_grads(program)
    for name, grad in _grads(engine, program, tensors).items():
        assert_close(grad, expected[name], dtype=program.dtype,
                     oracle=f"finite-difference (one pass after {reset_line.format(name)})",
                     what=f"{name}.grad")


@behaviour("ACC-6")
@given(data=st.data())
def test_grad_zero_restarts_accumulation(engine, data):
    def check_zeroed(name, tensor):
        zeroed = grad_or_none(engine, tensor)
        assert zeroed is not None and not np.any(zeroed), (
            f"{name}.grad after grad.zero_() is {None if zeroed is None else zeroed.tolist()}")

    _check_one_pass_after_reset(engine, data.draw(programs(engine), label="program"),
                                "{}.grad.zero_()", lambda tensor: tensor.grad.zero_(),
                                check_zeroed)


@behaviour("ACC-8")
@given(data=st.data())
def test_grad_set_to_none_restarts_accumulation(engine, data):
    def set_to_none(tensor):
        tensor.grad = None

    def check_none(name, tensor):
        assert tensor.grad is None, f"{name}.grad = None did not stick"

    _check_one_pass_after_reset(engine, data.draw(programs(engine), label="program"),
                                "{}.grad = None", set_to_none, check_none)


def _trained_net(ag, sizes, batch):
    """A small MLP after one backward pass of a sum over a random batch."""
    layers = []
    for fan_in, fan_out in zip(sizes, sizes[1:]):
        layers += [ag.nn.Linear(fan_in, fan_out), ag.nn.Tanh()]
    net = ag.nn.Sequential(*layers)
    x = ag.tensor(np.linspace(-1, 1, batch * sizes[0]).reshape(batch, sizes[0]).tolist())
    net(x).sum().backward()
    return net


mlp_sizes = st.lists(st.integers(1, 4), min_size=2, max_size=4)


@behaviour("ACC-9")
@needs("nn", "optim")
@given(sizes=mlp_sizes, batch=st.integers(1, 3), use_adam=st.booleans())
def test_optimizer_zero_grad_sets_grads_to_none(ag, sizes, batch, use_adam):
    net = _trained_net(ag, sizes, batch)
    params = list(net.parameters())
    assert all(p.grad is not None for p in params), "backward left a parameter without .grad"
    optimizer = (ag.optim.Adam if use_adam else ag.optim.SGD)(params, lr=0.1)
    optimizer.zero_grad()
    kept = [tuple(p.shape) for p in params if p.grad is not None]
    assert not kept, f"optimizer.zero_grad() left .grad set on parameters of shapes {kept}"


@behaviour("ACC-10")
@needs("nn")
@given(sizes=mlp_sizes, batch=st.integers(1, 3))
def test_module_zero_grad_sets_grads_to_none(ag, sizes, batch):
    net = _trained_net(ag, sizes, batch)
    net.zero_grad()
    kept = [name for name, p in net.named_parameters() if p.grad is not None]
    assert not kept, f"module.zero_grad() left .grad set on {kept}"


@behaviour("ACC-1")
def test_seed_two_passes_double_the_gradient(ag):
    """Seed 001/003: out = ((a + 3) ** 2 * 3).mean() at a = [2, 3] has grad [15, 18] per pass;
    a second pass over the retained graph accumulates to [30, 36]."""
    a = ag.tensor([2.0, 3.0], requires_grad=True)
    out = ((a + 3) * (a + 3) * 3).mean()
    out.backward(retain_graph=True)
    assert a.grad is not None, "a.grad is None"
    assert [a.grad[0].item(), a.grad[1].item()] == [15.0, 18.0]
    out.backward()
    assert a.grad is not None, "a.grad is None"
    assert [a.grad[0].item(), a.grad[1].item()] == [30.0, 36.0]
