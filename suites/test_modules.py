"""nn.Module: parameters require grad, so module outputs do; freezing keeps grads None (MOD-*)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import grad_or_none, record_reproducer
from autograd_conformance.harness.strategies import values

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs

sizes = st.integers(1, 4)


@st.composite
def mlp_shapes(draw):
    """Layer widths of a small MLP and a batch size."""
    widths = draw(st.lists(sizes, min_size=2, max_size=4), label="layer widths")
    return widths, draw(sizes, label="batch")


def _mlp(ag, widths):
    layers = []
    for fan_in, fan_out in zip(widths, widths[1:]):
        layers += [ag.nn.Linear(fan_in, fan_out), ag.nn.Tanh()]
    return ag.nn.Sequential(*layers)


def _input(ag, data, batch, width, requires_grad=False):
    array = data.draw(values((batch, width), "float32"), label="input")
    return ag.tensor(array.tolist(), requires_grad=requires_grad)


def _script(widths, batch, *after):
    layers = ", ".join(f"torch.nn.Linear({i}, {o}), torch.nn.Tanh()"
                       for i, o in zip(widths, widths[1:]))
    return "\n".join([f"net = torch.nn.Sequential({layers})",
                      f"x = torch.rand({batch}, {widths[0]})", *after])


@behaviour("MOD-1")
@needs("nn")
@given(shape=mlp_shapes())
def test_parameters_require_grad_and_are_leaves(ag, shape):
    widths, _ = shape
    record_reproducer(_script(widths, 1, "[(p.requires_grad, p.is_leaf) for p in net.parameters()]"))
    net = _mlp(ag, widths)
    params = list(net.named_parameters())
    assert len(params) == 2 * (len(widths) - 1), f"expected a weight and bias per Linear: {params}"
    for name, param in params:
        assert param.requires_grad, f"parameter {name} does not require grad by default"
        assert param.is_leaf, f"parameter {name} is not a leaf"


@behaviour("MOD-3")
@needs("nn")
@given(shape=mlp_shapes(), data=st.data())
def test_module_output_requires_grad_for_plain_input(ag, shape, data):
    widths, batch = shape
    record_reproducer(_script(widths, batch, "net(x).requires_grad  # True"))
    x = _input(ag, data, batch, widths[0])
    out = _mlp(ag, widths)(x)
    assert not x.requires_grad
    assert out.requires_grad, "net(x) does not require grad although net has parameters"


@behaviour("MOD-4")
@needs("nn")
@pytest.mark.parametrize("module", ["ReLU", "Tanh", "Sigmoid", "MSELoss"])
@pytest.mark.parametrize("requires_grad", [True, False])
@given(data=st.data())
def test_parameter_free_modules_pass_requires_grad_through(ag, module, requires_grad, data):
    record_reproducer(f"x = torch.rand(2, 3, requires_grad={requires_grad})\n"
                      f"torch.nn.{module}()(x{', torch.rand(2, 3)' if module == 'MSELoss' else ''})"
                      f".requires_grad")
    x = _input(ag, data, 2, 3, requires_grad=requires_grad)
    instance = getattr(ag.nn, module)()
    assert list(instance.parameters()) == [], f"nn.{module} has parameters"
    out = instance(x, ag.ones(2, 3)) if module == "MSELoss" else instance(x)
    assert bool(out.requires_grad) == requires_grad, (
        f"nn.{module} output requires_grad={out.requires_grad} for input "
        f"requires_grad={requires_grad}")


@behaviour("MOD-5")
@needs("nn")
@given(shape=mlp_shapes(), data=st.data())
def test_frozen_parameters_keep_grad_none(ag, engine, shape, data):
    widths, batch = shape
    net = _mlp(ag, widths)
    names = [name for name, _ in net.named_parameters()]
    frozen = data.draw(st.sets(st.sampled_from(names), max_size=len(names) - 1), label="frozen")
    record_reproducer(_script(widths, batch, f"frozen = {sorted(frozen)!r}",
                              "for name, p in net.named_parameters():",
                              "    p.requires_grad = name not in frozen",
                              "net(x).sum().backward()"))
    for name, param in net.named_parameters():
        if name in frozen:
            param.requires_grad = False
    net(_input(ag, data, batch, widths[0])).sum().backward()
    for name, param in net.named_parameters():
        grad = grad_or_none(engine, param)
        if name in frozen:
            assert grad is None, f"frozen parameter {name} got .grad {grad.tolist()}"
        else:
            # Every trainable parameter is on a path to the output (tanh never blocks a path).
            assert grad is not None, f"trainable parameter {name} has .grad None"
            assert grad.shape == tuple(param.shape) and np.all(np.isfinite(grad))


@behaviour("MOD-3", "MOD-4")
@needs("nn")
def test_seed_net_output_requires_grad_but_loss_of_plain_input_does_not(ag):
    """Seed 003: y = net(x) requires grad although x does not; an activation or a loss of plain
    tensors does not."""
    x = ag.tensor([[1.0, 2.0, 3.0]])
    assert ag.nn.Linear(3, 1)(x).requires_grad
    assert not ag.nn.ReLU()(x).requires_grad
    assert not ag.nn.MSELoss()(x, ag.zeros(1, 3)).requires_grad
