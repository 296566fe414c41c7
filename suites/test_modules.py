"""nn.Module: parameters require grad, so module outputs do; freezing keeps grads None; Linear and
MSELoss have the gradients of the functions they compute (MOD-*)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_gradients_stop_at
from autograd_conformance.harness.counts import SEQUENTIAL_MODULES, counts
from autograd_conformance.harness.script import Script, literal, tensor_literal
from autograd_conformance.harness.strategies import computed_output, full_precision_values, programs, shapes, values

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control
pytestmark = needs("nn")

sizes = st.integers(1, 4)


@st.composite
def mlp_shapes(draw, *, min_layers=1):
    """Layer widths of a small MLP of `min_layers` to four Linear layers (a SEQUENTIAL_MODULES
    count), and a batch size."""
    layers = draw(counts(SEQUENTIAL_MODULES, low=min_layers), label="Linear layers")
    widths = [draw(sizes, label=f"width {i}") for i in range(layers + 1)]
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
@given(shape=mlp_shapes())
def test_parameters_require_grad_and_are_leaves(engine, shape):
    """Every parameter of a Sequential of one to four Linear layers requires grad and is a leaf;
    named_parameters() and parameters() list each layer's weight and bias, layer by layer in
    the order the Sequential holds them."""
    widths, _ = shape
    names = _parameter_names(widths)
    script = Script(engine)
    _mlp(script, widths)
    script.run("params = list(net.named_parameters())")
    script.check_equal("[name for name, _ in params]", names,
                       why="a weight and bias per Linear, in the Sequential's order")
    held = ", ".join(f"net[{name.split('.')[0]}].{name.split('.')[1]}" for name in names)
    script.check(f"[id(p) for p in net.parameters()] == [id(p) for p in ({held},)]",
                 "net.parameters() does not list each layer's weight and bias in order",
                 show=("[tuple(p.shape) for p in net.parameters()]",))
    script.check("all(param.requires_grad for _, param in params)",
                 "parameters that do not require grad by default: "
                 "{[name for name, param in params if not param.requires_grad]}")
    script.check("all(param.is_leaf for _, param in params)",
                 "parameters that are not leaves: "
                 "{[name for name, param in params if not param.is_leaf]}")


@behaviour("MOD-3")
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
                 f"nn.{module}'s output does not have its input's requires_grad={requires_grad}",
                 show=("out.requires_grad",))


@behaviour("MOD-5")
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
            script.check_equal(grad, None, why=f"parameter {name} is frozen")
        else:
            # Every trainable parameter is on a path to the output (tanh never blocks a path).
            script.check(f"{grad} is not None", f"trainable parameter {name} has .grad None")
            script.check(f"to_numpy({grad}).shape == tuple(params[{name!r}].shape) "
                         f"and np.all(np.isfinite(to_numpy({grad})))",
                         f"trainable parameter {name} has a .grad of another shape or not finite",
                         show=(grad,))


@behaviour("MOD-3", "MOD-4")
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
@needs("float64")
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
    # Each sum of products rounds relative to the sum of the products' sizes (autograd_conformance/harness/oracles.py).
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
@needs("float64")
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


def _freeze(script, module):
    """The seed's idiom: every parameter of `module` (script source) stops requiring grad."""
    script.run(f"for p in {module}.parameters():", "    p.requires_grad = False")


def _check_grads_of_layers(script, layers, cleared, why):
    """After a step, the Linear layers `cleared` of `_mlp`'s net (by number) have grad None (`why`
    says why) and the others hold one."""
    __tracebackhide__ = True
    for layer in range(layers):
        for kind in ("weight", "bias"):
            grad = f"net[{2 * layer}].{kind}.grad"
            if layer in cleared:
                script.check_equal(grad, None, why=why)
            else:
                script.check(f"{grad} is not None", f"{grad} is None, but nothing cleared it")


@behaviour("MOD-2")
@given(data=st.data(), requires_grad=st.sampled_from([None, True, False]))
def test_a_parameter_is_a_leaf_even_of_a_computed_tensor(engine, data, requires_grad):
    """nn.Parameter(out) of a computed tensor is a leaf without grad_fn that requires grad by
    default (or as requires_grad= says) and holds out's values; backward from it fills its own
    .grad and reaches none of the leaves out was computed from."""
    program = data.draw(programs(engine, output="any", candidates=computed_output), label="program")
    shape, dtype = program.output_shape(), program.dtype
    w = data.draw(values(shape, dtype), label="w")
    flag = requires_grad is not False
    script = Script(engine)
    script.build(program)
    argument = "" if requires_grad is None else f", requires_grad={requires_grad}"
    script.run(f"p = torch.nn.Parameter(out{argument})")
    script.check("p.is_leaf and p.grad_fn is None", "nn.Parameter(out) is not a leaf: "
                 "grad_fn={p.grad_fn}")
    script.check(f"p.requires_grad == {flag}",
                 f"nn.Parameter(out{argument}).requires_grad is not {flag}",
                 show=("p.requires_grad",))
    script.check("np.array_equal(to_numpy(p), to_numpy(out))",
                 "nn.Parameter(out) has other values than out")
    if flag:
        assert_gradients_stop_at(script, program, "p", w, "nn.Parameter(out)")


@behaviour("MOD-6")
@control("test_modules.py::test_module_output_requires_grad_for_plain_input")
@given(shape=mlp_shapes(), data=st.data())
def test_a_fully_frozen_module_on_a_plain_input_records_nothing(engine, shape, data):
    """With every parameter frozen and an input that does not require grad, nothing requires
    grad: the output has no grad_fn and backward on it raises RuntimeError."""
    widths, batch = shape
    script = Script(engine)
    _mlp(script, widths)
    _freeze(script, "net")
    _input(script, data, batch, widths[0])
    script.run("out = net(x).sum()")
    script.check("not out.requires_grad and out.grad_fn is None",
                 "a fully frozen net on a plain input gives an output that requires grad "
                 "(grad_fn={out.grad_fn})")
    script.raises("out.backward()")


@behaviour("MOD-7")
@given(shape=mlp_shapes(min_layers=2), data=st.data())
def test_frozen_layers_cut_the_graph_only_before_the_first_trainable_one(engine, shape, data):
    """The seed's freezing of submodules: with some Linear layers frozen (`for p in
    layer.parameters(): p.requires_grad = False`) and a plain input, each module's output is a
    plain leaf up to the first trainable layer and recorded from there on; backward reaches every
    trainable layer, also through frozen layers after it, and no frozen one."""
    widths, batch = shape
    layers = len(widths) - 1
    frozen = data.draw(st.sets(st.integers(0, layers - 1), min_size=1, max_size=layers - 1),
                       label="frozen layers")
    first_trainable = min(set(range(layers)) - frozen)
    script = Script(engine)
    _mlp(script, widths)
    for layer in sorted(frozen):
        _freeze(script, f"net[{2 * layer}]")
    _input(script, data, batch, widths[0])
    previous = "x"
    for module in range(2 * layers):  # a Linear and a Tanh per layer
        script.run(f"h{module} = net[{module}]({previous})")
        recorded = module // 2 >= first_trainable
        script.check(f"h{module}.requires_grad == {recorded} and "
                     f"(h{module}.grad_fn is not None) == {recorded}",
                     f"net[{module}]'s output should be "
                     + ("a recorded result" if recorded else "a plain leaf (only frozen layers "
                                                             "before it)"),
                     show=(f"h{module}.requires_grad", f"h{module}.grad_fn"))
        previous = f"h{module}"
    script.run(f"{previous}.sum().backward()")
    _check_grads_of_layers(script, layers, frozen, "the layer is frozen")


@behaviour("MOD-8")
@given(shape=mlp_shapes(), data=st.data())
def test_module_requires_grad_sets_every_parameter(engine, shape, data):
    """net.requires_grad_(False) returns net with every parameter of every submodule frozen;
    requires_grad_() on a submodule unfreezes that submodule's parameters only, and on net all of
    them."""
    widths, _ = shape
    layer = data.draw(st.integers(0, len(widths) - 2), label="layer unfrozen first")
    script = Script(engine)
    _mlp(script, widths)
    script.run("returned = net.requires_grad_(False)",
               "flags = {name: p.requires_grad for name, p in net.named_parameters()}")
    script.check("returned is net", "net.requires_grad_(False) returned {returned!r}, not net")
    script.check("not any(flags.values())", "still requiring grad after net.requires_grad_(False): "
                 "{[name for name, flag in flags.items() if flag]}")
    script.run(f"net[{2 * layer}].requires_grad_()",
               "flags = {name: p.requires_grad for name, p in net.named_parameters()}")
    script.check(f"all(flag == name.startswith('{2 * layer}.') for name, flag in flags.items())",
                 f"after net[{2 * layer}].requires_grad_() other parameters than "
                 f"net[{2 * layer}]'s require grad", show=("flags",))
    script.run("net.requires_grad_()")
    script.check("all(p.requires_grad for p in net.parameters())",
                 "net.requires_grad_() left parameters frozen")


@behaviour("MOD-9")
@needs("optim")
@given(shape=mlp_shapes(min_layers=2), data=st.data(), optimizer=st.sampled_from(["SGD", "Adam"]))
def test_optimizer_zero_grad_clears_its_own_parameters_only(engine, shape, data, optimizer):
    """An optimizer over some layers' parameters clears only their grads in zero_grad();
    net.zero_grad() then clears every parameter's grad, those of a layer frozen since the
    backward (which still hold their grad) included."""
    widths, batch = shape
    layers = len(widths) - 1
    held = data.draw(st.sets(st.integers(0, layers - 1), min_size=1, max_size=layers - 1),
                     label="layers the optimizer holds")
    frozen = data.draw(st.sampled_from(sorted(set(range(layers)) - held)),
                       label="layer frozen after backward")
    script = Script(engine)
    _mlp(script, widths)
    script.run(f"held = [p for layer in {sorted(2 * layer for layer in held)} "
               "for p in net[layer].parameters()]",
               f"optimizer = torch.optim.{optimizer}(held, lr=0.1)")
    _input(script, data, batch, widths[0])
    script.run("net(x).sum().backward()", "optimizer.zero_grad()")
    _check_grads_of_layers(script, layers, held, "the optimizer holds it")
    _freeze(script, f"net[{2 * frozen}]")
    script.run("net.zero_grad()")
    _check_grads_of_layers(script, layers, set(range(layers)), "net.zero_grad() clears every "
                                                               "parameter, frozen ones too")


@behaviour("MOD-10")
@given(shape=shapes(min_dims=1), data=st.data())
def test_buffers_do_not_require_grad_and_are_not_parameters(engine, shape, data):
    """A tensor registered with register_buffer does not require grad, is listed by
    named_buffers() and not by named_parameters(), and gets no .grad from a backward through it;
    the Parameter beside it gets the gradient."""
    scale = data.draw(values(shape, "float32"), label="buffer")
    weight = data.draw(values(shape, "float32"), label="weight")
    script = Script(engine)
    script.run("module = torch.nn.Module()",
               f"module.register_buffer('scale', {tensor_literal(scale, 'float32')})",
               f"module.weight = torch.nn.Parameter({tensor_literal(weight, 'float32')})")
    script.check("[name for name, _ in module.named_parameters()] == ['weight']",
                 "named_parameters() lists {[name for name, _ in module.named_parameters()]}")
    script.check("[name for name, _ in module.named_buffers()] == ['scale']",
                 "named_buffers() lists {[name for name, _ in module.named_buffers()]}")
    script.check("not module.scale.requires_grad", "the buffer requires grad")
    script.run("(module.weight * module.scale).sum().backward()")
    script.check("module.scale.grad is None", "the buffer got .grad {module.scale.grad}")
    script.check_close("module.weight.grad", scale, dtype="float32", oracle="the buffer's values")


@behaviour("MOD-11")
@given(shape=mlp_shapes(), data=st.data(), switch=st.sampled_from(["eval()", "train(False)"]))
def test_eval_mode_leaves_autograd_alone(engine, shape, data, switch):
    """net.eval() (train(False)) returns net; its parameters still require grad, and its output
    is recorded with the gradients of training mode, exactly; under no_grad it is not."""
    widths, batch = shape
    script = Script(engine)
    _mlp(script, widths)
    _input(script, data, batch, widths[0])
    script.run("net(x).sum().backward()",
               "training = {name: to_numpy(p.grad).copy() for name, p in net.named_parameters()}",
               "net.zero_grad()", f"returned = net.{switch}")
    script.check("returned is net", f"net.{switch} did not return net", show=("returned",))
    script.check("all(p.requires_grad for p in net.parameters())",
                 f"net.{switch} froze parameters")
    script.run("out = net(x).sum()")
    script.check("out.requires_grad and out.grad_fn is not None",
                 f"after net.{switch} the output is not recorded")
    script.run("out.backward()")
    script.check("all(p.grad is not None and np.array_equal(to_numpy(p.grad), training[name]) "
                 "for name, p in net.named_parameters())",
                 f"after net.{switch} the gradients differ from training mode's")
    script.run("with torch.no_grad():", "    unrecorded = net(x)")
    script.check("not unrecorded.requires_grad and unrecorded.grad_fn is None",
                 "the output under no_grad is recorded")


# MOD-12's in-place updates of the parameter p.
# (line, its result from the values `before`, as script source)
PARAMETER_UPDATES = {"add_(1.0)": ("p.add_(1.0)", "before + 1.0"),
                     "mul_(2.0)": ("p.mul_(2.0)", "before * 2.0"),
                     "zero_()": ("p.zero_()", "np.zeros_like(before)"),
                     "copy_(zeros)": ("p.copy_(torch.zeros_like(p))", "np.zeros_like(before)")}


@behaviour("MOD-12")
@needs("inplace")
@given(shape=mlp_shapes(), data=st.data(), update=st.sampled_from(sorted(PARAMETER_UPDATES)))
def test_in_place_update_of_a_parameter(engine, shape, data, update):
    """An in-place update of a parameter raises RuntimeError in grad mode and leaves it as it
    was; under no_grad it applies, and the parameter stays a leaf that requires grad."""
    widths, _ = shape
    name = data.draw(st.sampled_from(_parameter_names(widths)), label="parameter")
    line, result = PARAMETER_UPDATES[update]
    script = Script(engine)
    _mlp(script, widths)
    script.run(f"p = dict(net.named_parameters())[{name!r}]", "before = to_numpy(p).copy()")
    script.raises(line)
    script.check("np.array_equal(to_numpy(p), before)", f"{line} raised but changed {name}")
    with script.control():
        script.run("with torch.no_grad():", f"    {line}")
        script.check("p.is_leaf and p.requires_grad and p.grad_fn is None",
                     f"after {line} under no_grad, {name} is not a leaf that requires grad",
                     show=("p.is_leaf", "p.requires_grad", "p.grad_fn"))
        script.check(f"np.array_equal(to_numpy(p), {result})",
                     f"{line} under no_grad did not give {result}", show=("to_numpy(p).tolist()",))
