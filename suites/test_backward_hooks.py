"""Hooks beyond Tensor.register_hook: after a leaf's accumulation, on graph nodes, on nn.Modules
and on the gradients of several tensors; when each fires and in what order (HOOK-*), as the
autograd note's "Backward Hooks execution" describes and torch 2.13 does. Tensor hooks are in
test_hooks.py.

Each test registers, besides the hook it checks, nothing that changes gradients unless it says
so; a hook records copies (`to_numpy(...).copy()`) of what it receives, which backward cannot
change afterwards.
"""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import assert_grads_with_paths_through_scaled
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.ops import OPS
from autograd_conformance.harness.script import Script, tensor_literal
from autograd_conformance.harness.strategies import (programs, recorded_intermediates,
                                                     recorded_nodes, values)

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs

FACTORS = st.sampled_from([0.0, 2.0, -1.0, 10.0])
COPY = "None if g is None else to_numpy(g).copy()"  # what a hook keeps of a gradient


def _recorded(engine, data, candidates=recorded_nodes):
    """A program and one of its `candidates` (default: a recorded node, the output included)."""
    program = data.draw(programs(engine, candidates=candidates), label="program")
    return program, data.draw(st.sampled_from(candidates(program)), label="hooked node")


# ----- after accumulation ---------------------------------------------------------------------
def _recording_post_accumulate_hook(leaf):
    """`calls`: for each call of a post-accumulate hook on `leaf`, whether it got the leaf itself,
    a copy of its .grad then, and whether an op on the leaf was recorded in the hook."""
    return ["calls = []",
            "def after(t):",
            f"    calls.append((t is {leaf}, to_numpy(t.grad).copy(), (t * 1.0).requires_grad))",
            f"{leaf}.register_post_accumulate_grad_hook(after)"]


@behaviour("HOOK-9")
@needs("post_accumulate_hooks")
@given(data=st.data(), passes=st.integers(1, 3))
def test_post_accumulate_hooks_run_after_each_accumulation(engine, data, passes):
    """The hook gets the leaf itself once per backward, after the pass's gradient was added to
    .grad (pass k sees k * the gradient), with grad mode off: an op on the leaf is not recorded."""
    program = data.draw(programs(engine), label="program")
    leaf = data.draw(st.sampled_from(program.grad_leaves()), label="leaf").name
    script = Script(engine)
    script.build(program)
    script.run(*_recording_post_accumulate_hook(leaf), *["out.backward(retain_graph=True)"] * passes)
    script.check_equal("len(calls)", passes,
                       why=f"one hook call per backward, {passes} backward calls")
    script.check("all(itself for itself, _, _ in calls)", f"the hook got another tensor than {leaf}")
    script.check("not any(recorded for _, _, recorded in calls)",
                 "an op in the hook was recorded: the hook ran in grad mode")
    expected = analytic_grads(program, wrt=[leaf])
    for k in range(passes):
        script.check_close(f"calls[{k}][1]", (k + 1) * expected[leaf], dtype=program.dtype,
                           oracle=f"analytic x {k + 1} (accumulated)",
                           magnitude=(k + 1) * expected.magnitude)


@behaviour("HOOK-9")
@needs("post_accumulate_hooks", "backward_create_graph")
@pytest.mark.filterwarnings("ignore:Using backward.. with create_graph=True:UserWarning")
@given(data=st.data())
def test_post_accumulate_hooks_run_in_grad_mode_under_create_graph(engine, data):
    """Under backward(create_graph=True) the hook runs in grad mode: an op on the leaf there is
    recorded."""
    program = data.draw(programs(engine), label="program")
    leaf = data.draw(st.sampled_from(program.grad_leaves()), label="leaf").name
    script = Script(engine)
    script.build(program)
    script.run(*_recording_post_accumulate_hook(leaf), "out.backward(create_graph=True)")
    script.check("len(calls) == 1 and calls[0][2]",
                 "under create_graph the hook ran {len(calls)} times, recording ops: "
                 "{[recorded for _, _, recorded in calls]}")


@behaviour("HOOK-9")
@needs("post_accumulate_hooks", "autograd_grad")
@given(data=st.data())
def test_post_accumulate_hooks_need_an_accumulation(engine, data):
    """autograd.grad accumulates nothing, so it runs no post-accumulate hook."""
    program = data.draw(programs(engine), label="program")
    leaf = data.draw(st.sampled_from(program.grad_leaves()), label="leaf").name
    script = Script(engine)
    script.build(program)
    script.run(*_recording_post_accumulate_hook(leaf), f"torch.autograd.grad(out, [{leaf}])")
    script.check("not calls", "autograd.grad ran the post-accumulate hook {len(calls)} times")


@behaviour("HOOK-9")
@needs("post_accumulate_hooks")
@given(data=st.data())
def test_post_accumulate_hooks_are_for_leaves(engine, data):
    """A non-leaf, which accumulates nothing, and a leaf that does not require grad refuse the
    hook."""
    program, _ = _recorded(engine, data)
    refusing = ([leaf.name for leaf in program.leaves if not leaf.requires_grad]
                + recorded_nodes(program))
    name = data.draw(st.sampled_from(refusing), label="tensor")
    script = Script(engine)
    script.build(program)
    script.raises(f"{name}.register_post_accumulate_grad_hook(lambda t: None)")




# ----- on graph nodes ---------------------------------------------------------------------------
def _removed_hook(node, method):
    """A second hook on `node`, removed at once: it must never run (its call would show in
    `seen`)."""
    return [f"removed = {node}.grad_fn.{method}(lambda *grads: seen.append('removed hook'))",
            "removed.remove()"]


@behaviour("HOOK-14")
@needs("node_hooks")
@given(data=st.data(), factor=FACTORS)
def test_node_post_hooks_see_and_replace_the_gradients_of_the_inputs(engine, data, factor):
    """h.grad_fn's post-hook gets (grad_inputs, grad_outputs): d out / dh once, and the gradient
    the node computed for each operand, None for one that does not require grad. Returning them
    times k scales the paths through h by k."""
    program, hooked = _recorded(engine, data)
    node = program.node(hooked)
    script = Script(engine)
    script.build(program)
    script.run("seen = []",
               "def post(grad_inputs, grad_outputs):",
               f"    seen.append(([{COPY} for g in grad_inputs], [{COPY} for g in grad_outputs]))",
               f"    return tuple(None if g is None else g * {factor} for g in grad_inputs)",
               f"{hooked}.grad_fn.register_hook(post)",
               *_removed_hook(hooked, "register_hook"),
               "out.backward()")
    script.check("len(seen) == 1", "the post-hooks ran {len(seen)} times: {seen}")
    expected = analytic_grads(program, wrt=[hooked, *node.args])
    values = program.evaluate()
    script.check("len(seen[0][1]) == 1", "grad_outputs has {len(seen[0][1])} entries, expected 1")
    script.check_close("seen[0][1][0]", expected[hooked], dtype=program.dtype,
                       oracle=f"analytic d out / d {hooked}", magnitude=expected.magnitude)
    operands = OPS[node.op].vjp(expected[hooked], tuple(values[a] for a in node.args),
                                node.param, values[hooked])
    script.check_equal("len(seen[0][0])", len(node.args),
                       why=f"grad_inputs has one entry per operand of {node.op}")
    for i, (arg, gradient) in enumerate(zip(node.args, operands)):
        if program.requires_grad(arg):
            script.check_close(f"seen[0][0][{i}]", gradient, dtype=program.dtype,
                               oracle=f"vjp of {node.op} for {arg}", magnitude=expected.magnitude)
        else:
            script.check_equal(f"seen[0][0][{i}]", None, why=f"{arg} does not require grad")
    assert_grads_with_paths_through_scaled(script, program, hooked, factor, how="node post-hook")


@behaviour("HOOK-15")
@needs("node_hooks")
@given(data=st.data(), factor=FACTORS)
def test_node_pre_hooks_see_and_replace_the_gradient_the_node_consumes(engine, data, factor):
    """h.grad_fn's pre-hook gets (d out / dh,); returning it times k scales the paths through h
    by k."""
    program, hooked = _recorded(engine, data)
    script = Script(engine)
    script.build(program)
    script.run("seen = []",
               "def pre(grad_outputs):",
               f"    seen.append([{COPY} for g in grad_outputs])",
               f"    return tuple(g * {factor} for g in grad_outputs)",
               f"{hooked}.grad_fn.register_prehook(pre)",
               *_removed_hook(hooked, "register_prehook"),
               "out.backward()")
    script.check("len(seen) == 1 and len(seen[0]) == 1",
                 "expected one pre-hook call with one gradient, got {seen}")
    expected = analytic_grads(program, wrt=[hooked])
    script.check_close("seen[0][0]", expected[hooked], dtype=program.dtype,
                       oracle=f"analytic d out / d {hooked}", magnitude=expected.magnitude)
    assert_grads_with_paths_through_scaled(script, program, hooked, factor, how="node pre-hook")


@behaviour("HOOK-15")
@needs("node_hooks", "custom_function")
@given(factor=FACTORS)
def test_a_node_of_two_outputs_gives_its_pre_hook_both_gradients(engine, factor):
    """The pre-hook of a node with two outputs (a custom Function's) gets both outputs'
    gradients, in output order, and may replace either."""
    script = Script(engine)
    script.run("class Two(torch.autograd.Function):",
               "    @staticmethod",
               "    def forward(ctx, x):",
               "        return x * 2, x * 3",
               "    @staticmethod",
               "    def backward(ctx, ga, gb):",
               "        return ga * 2 + gb * 3",
               "x = torch.tensor([1.5, -0.5], requires_grad=True)",
               "a, b = Two.apply(x)",
               "seen = []",
               "def pre(grad_outputs):",
               f"    seen.append([{COPY} for g in grad_outputs])",
               f"    return (grad_outputs[0] * {factor}, grad_outputs[1])",
               "a.grad_fn.register_prehook(pre)",
               "(a.sum() + (b * 5).sum()).backward()")
    script.check("len(seen) == 1 and len(seen[0]) == 2",
                 "expected one pre-hook call with two gradients, got {seen}")
    script.check_close("seen[0][0]", np.ones(2), dtype="float32", oracle="d out / d a = 1")
    script.check_close("seen[0][1]", np.full(2, 5.0), dtype="float32", oracle="d out / d b = 5")
    script.check_close("x.grad", np.full(2, 2.0 * factor + 15.0), dtype="float32",
                       oracle="2 k + 3 * 5, with the hook's k on a's gradient",
                       magnitude=abs(2.0 * factor) + 15.0)


@behaviour("HOOK-16")
@needs("node_hooks", "autograd_grad")
@given(data=st.data(), with_a_leaf_below=st.booleans())
def test_node_hooks_fire_only_when_the_node_runs(engine, data, with_a_leaf_below):
    """autograd.grad(out, [h]) needs h's gradient, not h.grad_fn: its hooks do not fire. With a
    leaf that h depends on among the inputs too, h.grad_fn runs, and each hook fires once."""
    program, hooked = _recorded(engine, data, candidates=recorded_intermediates)
    below = [leaf.name for leaf in program.leaves
             if leaf.requires_grad and leaf.name in program.ancestors(hooked)]
    inputs = [hooked]
    if with_a_leaf_below:
        inputs.append(data.draw(st.sampled_from(below), label="leaf below"))
    script = Script(engine)
    script.build(program)
    script.run("fired = []",
               f"{hooked}.grad_fn.register_prehook(lambda grad_outputs: fired.append('pre'))",
               f"{hooked}.grad_fn.register_hook(lambda grad_inputs, grad_outputs: fired.append('post'))",
               f"torch.autograd.grad(out, [{', '.join(inputs)}])")
    expected = ["pre", "post"] if with_a_leaf_below else []
    script.check_equal("fired", expected,
                       why=f"autograd.grad(out, {inputs}) runs {hooked}.grad_fn "
                       + ("once" if with_a_leaf_below else "never"))


@behaviour("HOOK-18")
@needs("node_hooks")
@given(data=st.data(), first=st.sampled_from([2.0, -1.0]), second=st.sampled_from([10.0, 0.5]))
def test_hooks_around_a_node_fire_in_the_documented_order(engine, data, first, second):
    """On an intermediate h, registered in any order: h's tensor hook (x a), retain_grad, a
    pre-hook (x b) and a post-hook of h.grad_fn fire as tensor hook, pre-hook, post-hook; when the
    pre-hook runs, h.grad already holds a * d out / dh, and keeps it (the pre-hook's replacement
    is not stored); the paths through h carry a * b."""
    program, hooked = _recorded(engine, data, candidates=recorded_intermediates)
    registrations = [
        f"{hooked}.register_hook(lambda g: fired.append(('tensor', None)) or g * {first})",
        f"{hooked}.retain_grad()",
        f"{hooked}.grad_fn.register_prehook(lambda grad_outputs: fired.append(('pre', "
        f"[{COPY} for g in [*grad_outputs, {hooked}.grad]])) or (grad_outputs[0] * {second},))",
        f"{hooked}.grad_fn.register_hook(lambda grad_inputs, grad_outputs: fired.append(('post', None)))",
    ]
    script = Script(engine)
    script.build(program)
    script.run("fired = []", *data.draw(st.permutations(registrations), label="registration order"),
               "out.backward()")
    script.check("[name for name, _ in fired] == ['tensor', 'pre', 'post']",
                 "the hooks fired in the order {[name for name, _ in fired]}")
    expected = analytic_grads(program, wrt=[hooked])
    for what, seen in (("the gradient the pre-hook got", "fired[1][1][0]"),
                       (f"{hooked}.grad when the pre-hook ran", "fired[1][1][1]"),
                       (f"{hooked}.grad after backward", f"{hooked}.grad")):
        script.check_close(seen, first * expected[hooked], dtype=program.dtype,
                           oracle=f"analytic x {first} (tensor hook): {what}",
                           magnitude=abs(first) * expected.magnitude)
    assert_grads_with_paths_through_scaled(script, program, hooked, first * second,
                                           how="tensor hook, then pre-hook")


@behaviour("HOOK-18")
@needs("node_hooks", "post_accumulate_hooks", "graph")
@given(data=st.data(), first=st.sampled_from([2.0, -1.0]), second=st.sampled_from([10.0, 0.5]))
def test_hooks_around_an_accumulation_fire_in_the_documented_order(engine, data, first, second):
    """On a leaf x and its AccumulateGrad node, registered in any order: x's tensor hook (x a),
    the node's pre-hook (x b), x's post-accumulate hook and the node's post-hook fire in that
    order; the pre-hook gets a * dout/dx, .grad then holds a * b * dout/dx, which the post-hook
    gets as its grad_outputs, with no grad_inputs (the node has no inputs)."""
    program = data.draw(programs(engine), label="program")
    leaf = data.draw(st.sampled_from(program.grad_leaves()), label="leaf").name
    registrations = [
        f"{leaf}.register_hook(lambda g: fired.append(('tensor', None)) or g * {first})",
        "accumulate.register_prehook(lambda grad_outputs: fired.append(('pre', "
        f"to_numpy(grad_outputs[0]).copy())) or (grad_outputs[0] * {second},))",
        f"{leaf}.register_post_accumulate_grad_hook(lambda t: fired.append(('accumulated', to_numpy(t.grad).copy())))",
        "accumulate.register_hook(lambda grad_inputs, grad_outputs: fired.append(('post', "
        "(len(grad_inputs), to_numpy(grad_outputs[0]).copy()))))",
    ]
    script = Script(engine)
    script.build(program)
    script.run("fired = []", f"accumulate = ({leaf} * 1.0).grad_fn.next_functions[0][0]",
               *data.draw(st.permutations(registrations), label="registration order"),
               "out.backward()")
    script.check("[name for name, _ in fired] == ['tensor', 'pre', 'accumulated', 'post']",
                 "the hooks fired in the order {[name for name, _ in fired]}")
    script.check("fired[3][1][0] == 0", "the post-hook got {fired[3][1][0]} grad_inputs, expected none")
    expected = analytic_grads(program, wrt=[leaf])
    for seen, factor in (("fired[1][1]", first), ("fired[2][1]", first * second),
                         ("fired[3][1][1]", first * second), (f"{leaf}.grad", first * second)):
        script.check_close(seen, factor * expected[leaf], dtype=program.dtype,
                           oracle=f"analytic x {factor}", magnitude=abs(factor) * expected.magnitude)


# ----- on nn.Modules ----------------------------------------------------------------------------
@st.composite
def _layers(draw):
    """A Linear layer's weight and bias, an input batch x, and the weights c of the loss
    (layer(x) * c).sum(), whose gradient w.r.t. the layer's output is c: float32 arrays."""
    fan_in, fan_out, batch = (draw(st.integers(1, 3), label=label)
                              for label in ("in features", "out features", "batch"))
    return (draw(values((fan_out, fan_in), "float32"), label="weight"),
            draw(values((fan_out,), "float32"), label="bias"),
            draw(values((batch, fan_in), "float32"), label="x"),
            draw(values((batch, fan_out), "float32", bound=2.0), label="c"))


def _build_layer(script, layer, input_requires_grad):
    """`lin`, `x` and `c` of `layer` on the engine."""
    weight, bias, x, c = layer
    script.run(f"lin = torch.nn.Linear({weight.shape[1]}, {weight.shape[0]})",
               f"lin.weight = torch.nn.Parameter({tensor_literal(weight, 'float32')})",
               f"lin.bias = torch.nn.Parameter({tensor_literal(bias, 'float32')})",
               f"x = {tensor_literal(x, 'float32', input_requires_grad)}",
               f"c = {tensor_literal(c, 'float32')}")


def _check_layer_grads(script, layer, *, scale_inputs, scale_parameters, input_requires_grad):
    """x.grad (where x requires grad) is scale_inputs * c @ W; the parameters' grads are
    scale_parameters * c^T x and scale_parameters * the column sums of c."""
    weight, _, x, c = layer
    expected = [("lin.weight.grad", c.T @ x, np.abs(c).T @ np.abs(x), scale_parameters),
                ("lin.bias.grad", c.sum(0), np.abs(c).sum(0), scale_parameters)]
    if input_requires_grad:
        expected.append(("x.grad", c @ weight, np.abs(c) @ np.abs(weight), scale_inputs))
    for name, value, size, scale in expected:
        script.check_close(name, scale * value, dtype="float32", oracle=f"analytic x {scale}",
                           magnitude=abs(scale) * float(size.max()))


PRODUCT = ("class Product(torch.nn.Module):  # w * x1 * ... * xk, a module of k inputs",
           "    def __init__(self):",
           "        super().__init__()",
           "        self.w = torch.nn.Parameter(torch.tensor([2.0, 3.0]))",
           "    def forward(self, *xs):",
           "        out = self.w",
           "        for x in xs:",
           "            out = out * x",
           "        return out")


@behaviour("HOOK-12")
@needs("nn", "module_hooks")
@given(inputs=st.integers(2, 3))
def test_a_module_hook_gets_one_grad_input_per_input(engine, inputs):
    """With k inputs that require grad, grad_input holds k gradients, each at its input's place:
    for w x^k with every x the same, w x^(k-1)."""
    script = Script(engine)
    script.run(*PRODUCT)
    script.run("module, seen = Product(), []",
               "module.register_full_backward_hook(lambda m, gi, go: seen.append(list(gi)))",
               f"xs = [torch.tensor([1.5, -0.5], requires_grad=True) for _ in range({inputs})]",
               "module(*xs).sum().backward()")
    script.check(f"len(seen) == 1 and len(seen[0]) == {inputs}",
                 f"expected one call with {inputs} grad_input entries", show=("seen",))
    for index in range(inputs):
        script.check_close(f"seen[0][{index}]", np.array([2.0, 3.0]) * np.array([1.5, -0.5])
                           ** (inputs - 1), dtype="float32", oracle="w x^(k-1)")


@behaviour("HOOK-12")
@needs("nn", "module_hooks")
@pytest.mark.filterwarnings("ignore:Full backward hook is firing:UserWarning")
@given(inputs=st.integers(1, 3), returned=st.sampled_from(["None", "Nones", "a gradient"]))
def test_a_module_hook_without_requiring_inputs_gets_and_may_return_only_nones(engine, inputs,
                                                                             returned):
    """A full backward hook on a module none of whose inputs requires grad (its parameter does)
    still fires, with grad_input None for each of the inputs; it may return None or a tuple of
    Nones, and anything else is a RuntimeError."""
    result = {"None": "None", "Nones": f"(None,) * {inputs}",
              "a gradient": f"(grad_output[0],) + (None,) * {inputs - 1}"}[returned]
    script = Script(engine)
    script.run(*PRODUCT)
    script.run("module, seen = Product(), []",
               "def hook(module, grad_input, grad_output):",
               "    seen.append([g is None for g in grad_input])",
               f"    return {result}",
               "module.register_full_backward_hook(hook)",
               f"loss = module(*[torch.tensor([1.5, -0.5]) for _ in range({inputs})]).sum()")
    if returned == "a gradient":
        script.raises("loss.backward()", "no input requires gradient should always return None")
    else:
        script.run("loss.backward()")
        script.check_close("module.w.grad", np.array([1.5, -0.5]) ** inputs, dtype="float32",
                           oracle="d(w x^k)/dw = x^k")
    script.check(f"seen == [[True] * {inputs}]",
                 f"expected one call with {inputs} grad_input entries, all None", show=("seen",))


@behaviour("HOOK-12")
@needs("nn", "module_hooks")
@pytest.mark.filterwarnings("ignore:Full backward hook is firing:UserWarning")
@given(layer=_layers(), input_requires_grad=st.booleans(), factor=FACTORS)
def test_module_backward_hooks_see_and_replace_grad_input(engine, layer, input_requires_grad,
                                                         factor):
    """A full backward hook on a Linear layer gets (the layer, (dL/dx,), (dL/dout,)), dL/dx None
    when x does not require grad; returning (dL/dx * k,) makes x.grad k times as large and leaves
    the parameters' gradients alone. A removed hook does not run."""
    weight, _, _, c = layer
    script = Script(engine)
    _build_layer(script, layer, input_requires_grad)
    script.run("seen = []",
               "def hook(module, grad_input, grad_output):",
               f"    seen.append((module is lin, [{COPY} for g in grad_input], [{COPY} for g in grad_output]))",
               "    if grad_input[0] is not None:",
               f"        return (grad_input[0] * {factor},)",
               "lin.register_full_backward_hook(hook)",
               "removed = lin.register_full_backward_hook(lambda *args: seen.append('removed hook'))",
               "removed.remove()",
               "(lin(x) * c).sum().backward()")
    script.check("len(seen) == 1 and seen[0][0]", "expected one call with the layer, got {seen}")
    script.check("len(seen[0][1]) == 1 and len(seen[0][2]) == 1",
                 "expected one grad_input and one grad_output, got {seen[0][1:]}")
    script.check_close("seen[0][2][0]", c, dtype="float32", oracle="dL/dout = c")
    if input_requires_grad:
        script.check_close("seen[0][1][0]", c @ weight, dtype="float32", oracle="dL/dx = c @ W",
                           magnitude=float((np.abs(c) @ np.abs(weight)).max()))
    else:
        script.check("seen[0][1][0] is None",
                     "x does not require grad, but grad_input is {seen[0][1]}")
    _check_layer_grads(script, layer, scale_inputs=factor, scale_parameters=1.0,
                       input_requires_grad=input_requires_grad)


@behaviour("HOOK-12")
@needs("nn", "module_hooks")
@pytest.mark.filterwarnings("ignore:Full backward hook is firing:UserWarning")
@given(layer=_layers(), input_requires_grad=st.booleans(), factor=FACTORS)
def test_module_backward_pre_hooks_replace_grad_output(engine, layer, input_requires_grad,
                                                      factor):
    """A full backward pre-hook gets (the layer, (dL/dout,)) before the layer's backward;
    returning (dL/dout * k,) scales every gradient the layer produces, its parameters' and its
    input's, by k, and the full hook, which runs after it, gets the replaced grad_output. A
    removed pre-hook does not run."""
    _, _, _, c = layer
    script = Script(engine)
    _build_layer(script, layer, input_requires_grad)
    script.run("seen = []",
               "lin.register_full_backward_pre_hook(lambda module, grad_output: seen.append(("
               f"'pre', module is lin, to_numpy(grad_output[0]).copy())) or (grad_output[0] * {factor},))",
               "lin.register_full_backward_hook(lambda module, grad_input, grad_output: seen.append(("
               "'hook', module is lin, to_numpy(grad_output[0]).copy())))",
               "removed = lin.register_full_backward_pre_hook(lambda *args: seen.append('removed hook'))",
               "removed.remove()",
               "(lin(x) * c).sum().backward()")
    script.check("[call[0] for call in seen] == ['pre', 'hook'] and all(call[1] for call in seen)",
                 "expected the pre-hook, then the hook, each with the layer; got {seen}")
    script.check_close("seen[0][2]", c, dtype="float32", oracle="dL/dout = c")
    script.check_close("seen[1][2]", factor * c, dtype="float32", oracle=f"c x {factor} (pre-hook)",
                       magnitude=abs(factor) * 2.0)
    _check_layer_grads(script, layer, scale_inputs=factor, scale_parameters=factor,
                       input_requires_grad=input_requires_grad)


# HOOK-21: the in-place ops tried on a hook-wrapped tensor, and x.grad after one on (x * 1) * 2.
HOOKED_INPLACE = {"mul_(2.0)": 4.0, "add_(1.0)": 2.0, "zero_()": 0.0, "copy_(torch.ones(2))": 0.0}
SCALE = ("class Scale(torch.nn.Module):  # 2 t, after change(t) in place if a change is given",
         "    def __init__(self, change=None):",
         "        super().__init__()",
         "        self.change = change",
         "    def forward(self, t):",
         "        if self.change is not None:",
         "            self.change(t)",
         "        return t * 2")


@behaviour("HOOK-21")
@needs("nn", "module_hooks", "inplace")
@given(op=st.sampled_from(sorted(HOOKED_INPLACE)), inside=st.booleans(),
       hook=st.sampled_from(["register_full_backward_hook(lambda m, gi, go: None)",
                             "register_full_backward_pre_hook(lambda m, go: None)"]),
       x=values((2,), "float32"))
def test_in_place_ops_on_a_hooked_module_s_inputs_and_outputs_raise(engine, op, inside, hook, x):
    """With a full backward hook or pre-hook, the op in place on the module's input inside
    forward, or on its output after the call, raises RuntimeError; on a clone of the output it
    runs. Once the hook is removed the same program runs and x.grad is that of the ops."""
    target = "module(x * 1)" if inside else f"module(x * 1).{op}"
    script = Script(engine)
    script.run(*SCALE)
    script.run(f"module = Scale(lambda t: t.{op})" if inside else "module = Scale()",
               f"handle = module.{hook}", f"x = {tensor_literal(x, 'float32', True)}")
    script.raises(target)
    if not inside:
        script.run(f"module(x * 1).clone().{op}")
    script.run("handle.remove()", f"{target}.sum().backward()")
    script.check_close("x.grad", np.full(2, HOOKED_INPLACE[op]), dtype="float32",
                       oracle=f"analytic, {op} {'inside' if inside else 'after'} the module")


# ----- on several tensors -------------------------------------------------------------------------
def _multi_grad_hook(data, program, mode):
    """One to three tensors of `program` that get gradients (not its output, backward's root),
    and the source of a multi-grad hook in `mode` that logs what it gets to `log`."""
    reached = ([leaf.name for leaf in program.grad_leaves() if leaf.name != program.output]
               + recorded_intermediates(program))
    chosen = data.draw(st.lists(st.sampled_from(reached), min_size=1, max_size=3, unique=True),
                       label="tensors")
    fired = (f"lambda grads: log.append(('all', [{COPY} for g in grads]))" if mode == "all"
             else "lambda g: log.append(('any', to_numpy(g).copy())), mode='any'")
    return chosen, fired


@behaviour("HOOK-19")
@needs("multi_grad_hooks")
@pytest.mark.parametrize("mode", ["all", "any"])
@given(data=st.data(), passes=st.integers(1, 2), with_spare=st.booleans())
def test_multi_grad_hooks_fire_once_per_backward(engine, mode, data, passes, with_spare):
    """Each chosen tensor has a hook that logs its name, registered before the multi-grad hook.
    Per backward, "all" fires once, after every reached tensor's hook, with each tensor's gradient
    (None for `spare`, which no backward reaches); "any" fires once, right after the first
    tensor's hook, with that tensor's gradient. After handle.remove() it fires no more. (The
    tensors exclude the output, backward's root: with it, torch 2.13's "all" hook miscounts the
    gradients to wait for, and fires never or once per gradient.)"""
    program = data.draw(programs(engine, candidates=recorded_intermediates), label="program")
    chosen, fired = _multi_grad_hook(data, program, mode)
    tensors = data.draw(st.permutations(chosen + ["spare"] * with_spare), label="order")
    script = Script(engine)
    script.build(program)
    script.run("spare = torch.zeros(2, requires_grad=True)", "log = []",
               *[f"{name}.register_hook(lambda g: log.append({name!r}))" for name in tensors],
               f"handle = torch.autograd.graph.register_multi_grad_hook([{', '.join(tensors)}], {fired})",
               "logs = []",
               *["log = []\nout.backward(retain_graph=True)\nlogs.append(log)"] * passes)
    expected = analytic_grads(program, wrt=chosen)
    position = -1 if mode == "all" else 1
    for k in range(passes):
        script.check(f"sum(isinstance(entry, tuple) for entry in logs[{k}]) == 1 "
                     f"and isinstance(logs[{k}][{position}], tuple)",
                     f"in backward {k + 1} the {mode!r} hook must fire once, "
                     + ("after every tensor's hook" if mode == "all" else "right after the first"),
                     show=(f"logs[{k}]",))
        if mode == "all":
            for i, name in enumerate(tensors):
                if name == "spare":
                    script.check_equal(f"logs[{k}][-1][1][{i}]", None,
                                       why="no backward reaches spare")
                else:
                    script.check_close(f"logs[{k}][-1][1][{i}]", expected[name], dtype=program.dtype,
                                       oracle=f"analytic d out / d {name}", magnitude=expected.magnitude)
        else:
            script.check(f"logs[{k}][0] in {chosen!r}",
                         f"the first entry of logs[{k}] is no tensor's hook", show=(f"logs[{k}]",))
            first = script.value(f"logs[{k}][0]")
            script.check_close(f"logs[{k}][1][1]", expected[first], dtype=program.dtype,
                               oracle=f"analytic d out / d {first}, the first gradient computed",
                               magnitude=expected.magnitude)
    script.run("handle.remove()", "log = []", "out.backward()")
    script.check("not any(isinstance(entry, tuple) for entry in log)",
                 "the removed multi-grad hook fired: {log}")


@behaviour("HOOK-19")
@needs("multi_grad_hooks", "grad_mode")
@pytest.mark.parametrize("mode", ["all", "any"])
@given(data=st.data())
def test_multi_grad_hooks_count_their_own_pass_around_a_nested_backward(engine, mode, data):
    """A hook on the output runs a backward of its own (on a graph it builds under enable_grad)
    before any chosen tensor gets its gradient. That nested pass is over when the outer one goes
    on, and the multi-grad hook fires once for the outer pass, "all" with every tensor's
    gradient, "any" with the first: an engine that still takes the nested pass for the running
    one waits for gradients of the wrong pass."""
    program = data.draw(programs(engine, candidates=recorded_intermediates), label="program")
    chosen, fired = _multi_grad_hook(data, program, mode)
    script = Script(engine)
    script.build(program)
    script.run("log = []",
               "def nested(g):\n"
               "    with torch.enable_grad():\n"
               "        w = torch.ones(2, requires_grad=True)\n"
               "        (w * 2.0).sum().backward()\n"
               "    log.append(('nested', to_numpy(w.grad).copy()))",
               "out.register_hook(nested)",
               *[f"{name}.register_hook(lambda g: log.append({name!r}))" for name in chosen],
               f"torch.autograd.graph.register_multi_grad_hook([{', '.join(chosen)}], {fired})",
               "out.backward()", "fires = [entry for entry in log if isinstance(entry, tuple)]")
    script.check(f"[entry[0] for entry in fires] == ['nested', {mode!r}]",
                 f"expected the nested backward, then the {mode!r} hook once", show=("log",))
    script.check_close("fires[0][1]", np.full(2, 2.0), dtype="float32",
                       oracle="d sum(2 w) / d w = 2 (the nested backward)")
    expected = analytic_grads(program, wrt=chosen)
    if mode == "all":
        for i, name in enumerate(chosen):
            script.check_close(f"fires[1][1][{i}]", expected[name], dtype=program.dtype,
                               oracle=f"analytic d out / d {name}", magnitude=expected.magnitude)
    else:
        first = script.value("next(entry for entry in log if isinstance(entry, str))")
        script.check_close("fires[1][1]", expected[first], dtype=program.dtype,
                           oracle=f"analytic d out / d {first}, the first gradient computed",
                           magnitude=expected.magnitude)


@behaviour("HOOK-20")
@needs("node_metadata")
@given(data=st.data())
def test_node_metadata_is_a_dict_of_its_own(engine, data):
    """grad_fn.metadata is an empty dict at first, the same object at every access, and keeps an
    entry stored in it; the other nodes' dicts are others."""
    program, hooked = _recorded(engine, data)
    others = [name for name in recorded_nodes(program) if name != hooked]
    script = Script(engine)
    script.build(program)
    script.run(f"meta = {hooked}.grad_fn.metadata")
    script.check("isinstance(meta, dict) and not meta", "a new node's metadata is {meta!r}")
    script.run("meta['seen'] = 1", "out.backward()")
    script.check(f"{hooked}.grad_fn.metadata is meta and {hooked}.grad_fn.metadata == "
                 + repr({"seen": 1}),
                 f"{hooked}.grad_fn.metadata is another object or lost its entry",
                 show=(f"{hooked}.grad_fn.metadata",))
    if others:
        script.check(" and ".join(f"{name}.grad_fn.metadata is not meta" for name in others),
                     f"another node of {others} shares {hooked}.grad_fn's metadata dict")
