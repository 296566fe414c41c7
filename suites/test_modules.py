"""nn.Module: parameters require grad, so module outputs do; freezing keeps grads None (MOD-*)."""

import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.script import Script, literal
from autograd_conformance.harness.strategies import values

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs

sizes = st.integers(1, 4)


@st.composite
def mlp_shapes(draw):
    """Layer widths of a small MLP and a batch size."""
    widths = draw(st.lists(sizes, min_size=2, max_size=4), label="layer widths")
    return widths, draw(sizes, label="batch")


def _mlp(script, widths):
    """`net`: Linear layers of `widths`, each followed by Tanh."""
    layers = ", ".join(f"torch.nn.Linear({fan_in}, {fan_out}), torch.nn.Tanh()"
                       for fan_in, fan_out in zip(widths, widths[1:]))
    script.run(f"net = torch.nn.Sequential({layers})")


def _parameter_names(widths):
    """torch's names of `_mlp`'s parameters: a weight and a bias per Linear (every other layer)."""
    return [f"{2 * layer}.{kind}" for layer in range(len(widths) - 1)
            for kind in ("weight", "bias")]


def _input(script, data, batch, width, requires_grad=False):
    """`x`: a drawn float32 batch."""
    array = data.draw(values((batch, width), "float32"), label="input")
    flag = ", requires_grad=True" if requires_grad else ""
    script.run(f"x = torch.tensor({literal(array)}{flag})")


@behaviour("MOD-1")
@needs("nn")
@given(shape=mlp_shapes())
def test_parameters_require_grad_and_are_leaves(engine, shape):
    widths, _ = shape
    script = Script(engine)
    _mlp(script, widths)
    script.run("params = list(net.named_parameters())")
    script.check(f"len(params) == {2 * (len(widths) - 1)}",
                 "expected a weight and bias per Linear: {[name for name, _ in params]}")
    script.check("all(param.requires_grad for _, param in params)",
                 "parameters that do not require grad by default: "
                 "{[name for name, param in params if not param.requires_grad]}")
    script.check("all(param.is_leaf for _, param in params)",
                 "parameters that are not leaves: "
                 "{[name for name, param in params if not param.is_leaf]}")


@behaviour("MOD-3")
@needs("nn")
@given(shape=mlp_shapes(), data=st.data())
def test_module_output_requires_grad_for_plain_input(engine, shape, data):
    widths, batch = shape
    script = Script(engine)
    _input(script, data, batch, widths[0])
    _mlp(script, widths)
    script.run("out = net(x)")
    script.check("not x.requires_grad", "x was made without requires_grad but requires grad")
    script.check("out.requires_grad", "net(x) does not require grad although net has parameters")


@behaviour("MOD-4")
@needs("nn")
@pytest.mark.parametrize("module", ["ReLU", "Tanh", "Sigmoid", "MSELoss"])
@pytest.mark.parametrize("requires_grad", [True, False])
@given(data=st.data())
def test_parameter_free_modules_pass_requires_grad_through(engine, module, requires_grad, data):
    script = Script(engine)
    _input(script, data, 2, 3, requires_grad=requires_grad)
    script.run(f"instance = torch.nn.{module}()")
    script.check("list(instance.parameters()) == []", f"nn.{module} has parameters")
    script.run("out = instance(x, torch.ones(2, 3))" if module == "MSELoss"
               else "out = instance(x)")
    script.check(f"bool(out.requires_grad) == {requires_grad}",
                 f"nn.{module} output requires_grad={{out.requires_grad}} for input "
                 f"requires_grad={requires_grad}")


@behaviour("MOD-5")
@needs("nn")
@given(shape=mlp_shapes(), data=st.data())
def test_frozen_parameters_keep_grad_none(engine, shape, data):
    widths, batch = shape
    names = _parameter_names(widths)
    frozen = data.draw(st.sets(st.sampled_from(names), max_size=len(names) - 1), label="frozen")
    script = Script(engine)
    _mlp(script, widths)
    script.run("params = dict(net.named_parameters())")
    for name in sorted(frozen):
        script.run(f"params[{name!r}].requires_grad = False")
    _input(script, data, batch, widths[0])
    script.run("net(x).sum().backward()")
    for name in names:
        grad = f"params[{name!r}].grad"
        if name in frozen:
            script.check(f"{grad} is None", f"frozen parameter {name} got .grad {{{grad}}}")
        else:
            # Every trainable parameter is on a path to the output (tanh never blocks a path).
            script.check(f"{grad} is not None", f"trainable parameter {name} has .grad None")
            script.check(f"to_numpy({grad}).shape == tuple(params[{name!r}].shape) "
                         f"and np.all(np.isfinite(to_numpy({grad})))",
                         f"trainable parameter {name} has .grad {{{grad}}}")


@behaviour("MOD-3", "MOD-4")
@needs("nn")
def test_seed_net_output_requires_grad_but_loss_of_plain_input_does_not(engine):
    """Seed 003: y = net(x) requires grad although x does not; an activation or a loss of plain
    tensors does not."""
    script = Script(engine)
    script.run("x = torch.tensor([[1.0, 2.0, 3.0]])", "y = torch.nn.Linear(3, 1)(x)")
    script.check("y.requires_grad", "a Linear layer's output does not require grad",
                 behaviour="MOD-3")
    script.run("activation = torch.nn.ReLU()(x)")
    script.check("not activation.requires_grad", "ReLU of a plain tensor requires grad",
                 behaviour="MOD-4")
    script.run("loss = torch.nn.MSELoss()(x, torch.zeros(1, 3))")
    script.check("not loss.requires_grad", "MSELoss of plain tensors requires grad",
                 behaviour="MOD-4")
