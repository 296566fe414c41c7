"""nn.Module: parameters require grad, so module outputs do; freezing keeps grads None; Linear and
MSELoss have the gradients of the functions they compute (MOD-*)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.script import Script, literal
from autograd_conformance.harness.strategies import full_precision_values, shapes, values

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



@behaviour("MOD-14")
@needs("nn", "float64")
@given(fan_in=sizes, fan_out=sizes, batch=sizes, data=st.data())
def test_linear_has_the_gradients_of_x_times_w_transposed_plus_b(engine, fan_in, fan_out, batch,
                                                                 data):
    """nn.Linear computes out = x W^T + b, so out.backward(v) gives W.grad = v^T x, b.grad = v
    summed over the batch and x.grad = v W (with float64 parameters replacing the layer's own,
    so that a gradient rounded through float32 shows)."""
    x, w, b, v = (data.draw(full_precision_values(shape, "float64"), label=name)
                  for name, shape in (("x", (batch, fan_in)), ("weight", (fan_out, fan_in)),
                                      ("bias", (fan_out,)), ("gradient", (batch, fan_out))))
    script = Script(engine)
    script.run(f"layer = torch.nn.Linear({fan_in}, {fan_out})",
               f"layer.weight = torch.nn.Parameter(torch.tensor({literal(w)}, dtype=torch.float64))",
               f"layer.bias = torch.nn.Parameter(torch.tensor({literal(b)}, dtype=torch.float64))",
               f"x = torch.tensor({literal(x)}, dtype=torch.float64, requires_grad=True)",
               "out = layer(x)")
    # Each sum of products rounds relative to the sum of the products' sizes (harness/oracles.py).
    sizes = [float(np.max(a, initial=0.0)) for a in (abs(x) @ abs(w).T + abs(b), abs(v).T @ abs(x),
                                              abs(v).sum(axis=0), abs(v) @ abs(w))]
    script.check_close("out", x @ w.T + b, dtype="float64", oracle="x W^T + b",
                       magnitude=sizes[0])
    script.run(f"out.backward(torch.tensor({literal(v)}, dtype=torch.float64))")
    script.check_close("layer.weight.grad", v.T @ x, dtype="float64", oracle="v^T x",
                       magnitude=sizes[1])
    script.check_close("layer.bias.grad", v.sum(axis=0), dtype="float64",
                       oracle="v summed over the batch", magnitude=sizes[2])
    script.check_close("x.grad", v @ w, dtype="float64", oracle="v W", magnitude=sizes[3])


@behaviour("MOD-15")
@needs("nn", "float64")
@pytest.mark.filterwarnings("ignore:Using a target size:UserWarning")  # torch's, for broadcasting
@given(shape=shapes(min_dims=1), data=st.data(), reduction=st.sampled_from(["mean", "sum"]),
       smaller=st.sampled_from(["neither", "input", "target"]),
       requiring=st.sampled_from(["input", "target", "both"]))
def test_mse_loss_has_the_gradients_of_the_squared_error(engine, shape, data, reduction, smaller,
                                                          requiring):
    """nn.MSELoss()(input, target) is the mean of (input - target)^2 over the n elements of their
    broadcast (the sum with reduction='sum'): loss.backward(c) gives input c * 2 (input - target)
    / n (no / n for 'sum') and target its negative, each summed over the leading dims it was
    broadcast along (torch warns when the shapes differ). In float64, so that a gradient rounded
    through float32 shows."""
    operand_shapes = {"input": shape, "target": shape}
    if smaller != "neither":
        operand_shapes[smaller] = shape[data.draw(st.integers(1, len(shape)),
                                                  label="leading dims dropped"):]
    # moderate values: with a tiny gradient or difference a wrong 1/n would hide under the atol
    arrays = {name: data.draw(full_precision_values(operand_shape, "float64"), label=name)
              for name, operand_shape in operand_shapes.items()}
    c = data.draw(full_precision_values((), "float64"), label="gradient")
    script = Script(engine)
    for name, array in arrays.items():
        script.run(f"{name} = torch.tensor({literal(array)}, dtype=torch.float64, "
                   f"requires_grad={requiring in (name, 'both')})")
    arguments = "" if reduction == "mean" else "reduction='sum'"
    script.run(f"loss = torch.nn.MSELoss({arguments})(input, target)",
               f"loss.backward(torch.tensor({literal(c)}, dtype=torch.float64))")
    difference = arrays["input"] - arrays["target"]
    common = c * 2.0 * difference / (difference.size if reduction == "mean" else 1)
    # the size of what is summed, where the difference or the broadcast sum cancels
    size = (abs(c) * 2.0 / (difference.size if reduction == "mean" else 1)
            * (abs(arrays["input"]) + abs(arrays["target"])))
    for name, grad in (("input", common), ("target", -common)):
        if requiring in (name, "both"):
            script.check_close(f"{name}.grad",
                               grad.reshape((-1,) + operand_shapes[name]).sum(axis=0),
                               magnitude=size.reshape((-1,) + operand_shapes[name]).sum(axis=0)
                               .max(), dtype="float64",
                               oracle=f"{'-' if name == 'target' else ''}2 c (input - target)"
                                      f"{' / n' if reduction == 'mean' else ''}, summed to "
                                      f"{name}'s shape")
