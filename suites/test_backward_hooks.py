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
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_grads_with_paths_through_scaled
from autograd_conformance.harness.counts import (
    BACKWARD_PASSES,
    HOOKS_PER_MODULE,
    HOOKS_PER_NODE,
    HOOKS_PER_TENSOR,
    counts,
)
from autograd_conformance.harness.ops import OPS
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script, tensor_literal
from autograd_conformance.harness.strategies import programs, recorded_intermediates, recorded_nodes, values

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control

FACTORS = st.sampled_from([0.0, 2.0, -1.0, 10.0])
COPY = "None if g is None else to_numpy(g).copy()"  # what a hook keeps of a gradient
# The factors of chained hooks (HOOK-12, HOOK-14, HOOK-15): no product of some of them is 1.
CHAIN_FACTORS = (2.0, -3.0, 10.0, -0.5, 4.0)


def _registrations(data, hooks):
    """For each of `hooks` registrations, the index of the hook function it registers: a new one
    (the next index) or one registered before, which torch then runs once more."""
    picks = []
    for _ in range(hooks):
        fresh = len(set(picks))
        picks.append(fresh - data.draw(st.integers(0, fresh), label="hook: steps back from a new one"))
    return picks


def _recorded(engine, data, candidates=recorded_nodes):
    """A program and one of its `candidates` (default: a recorded node, the output included)."""
    program = data.draw(programs(engine, candidates=candidates), label="program")
    return program, data.draw(st.sampled_from(candidates(program)), label="hooked node")


# ----- after accumulation ---------------------------------------------------------------------
def _recording_post_accumulate_hooks(leaf, registrations=(0,)):
    """`calls`: for each call of a post-accumulate hook on `leaf`, in the order they ran, which
    hook it was, whether it got the leaf itself, a copy of its .grad then, and whether an op on
    the leaf was recorded in the hook. Hook i is registered where `registrations` holds i."""
    return ["calls = []",
            "def after(i):",
            f"    return lambda t: calls.append((i, t is {leaf}, to_numpy(t.grad).copy(), (t * 1.0).requires_grad))",
            f"hooks = [after(i) for i in range({max(registrations) + 1})]",
            *[f"{leaf}.register_post_accumulate_grad_hook(hooks[{i}])" for i in registrations]]


@behaviour("HOOK-9")
@needs("post_accumulate_hooks")
@given(data=st.data(), hooks=counts(HOOKS_PER_TENSOR), passes=counts(BACKWARD_PASSES))
def test_post_accumulate_hooks_run_after_each_accumulation(engine, data, hooks, passes):
    """Each of the leaf's hooks gets the leaf itself once per backward and registration, in
    registration order (a function registered twice runs twice), after the pass's gradient was
    added to .grad (pass k sees k * the gradient), with grad mode off: an op on the leaf is not
    recorded."""
    program = data.draw(programs(engine), label="program")
    leaf = data.draw(st.sampled_from(program.grad_leaves()), label="leaf").name
    registrations = _registrations(data, hooks)
    script = Script(engine)
    script.build(program)
    script.run(*_recording_post_accumulate_hooks(leaf, registrations),
               *["out.backward(retain_graph=True)"] * passes)
    script.check_equal("[i for i, _, _, _ in calls]", registrations * passes,
                       why=f"the hooks registered as {registrations} once per backward, in "
                       f"registration order, {passes} backward calls")
    script.check("all(itself for _, itself, _, _ in calls)", f"a hook got another tensor than {leaf}")
    script.check("not any(recorded for _, _, _, recorded in calls)",
                 "an op in a hook was recorded: the hook ran in grad mode")
    expected = analytic_grads(program, wrt=[leaf])
    script.check_close("np.stack([grad for _, _, grad, _ in calls])",
                       np.stack([(k + 1) * expected[leaf] for k in range(passes) for _ in range(hooks)]),
                       dtype=program.dtype, oracle="analytic x k in pass k (accumulated)",
                       magnitude=passes * expected.magnitude)


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
    script.run(*_recording_post_accumulate_hooks(leaf), "out.backward(create_graph=True)")
    script.check("len(calls) == 1 and calls[0][3]",
                 "under create_graph the hook ran {len(calls)} times, recording ops: "
                 "{[recorded for _, _, _, recorded in calls]}")


@behaviour("HOOK-9")
@needs("post_accumulate_hooks", "autograd_grad")
@given(data=st.data())
def test_post_accumulate_hooks_need_an_accumulation(engine, data):
    """autograd.grad accumulates nothing, so it runs no post-accumulate hook."""
    program = data.draw(programs(engine), label="program")
    leaf = data.draw(st.sampled_from(program.grad_leaves()), label="leaf").name
    script = Script(engine)
    script.build(program)
    script.run(*_recording_post_accumulate_hooks(leaf), f"torch.autograd.grad(out, [{leaf}])")
    script.check("not calls", "autograd.grad ran the post-accumulate hook {len(calls)} times")


@behaviour("HOOK-9")
@control("test_backward_hooks.py::test_post_accumulate_hooks_run_after_each_accumulation")
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


def _chained_factors(data, hooks):
    """The factors of `hooks` chained hooks, each scaling what the one before it returned; a factor
    that comes again is the same function registered again (`_by_factor`). The functions' factors
    are distinct, and no product of some of them is 1, so each hook sees another gradient than it
    would at any other place in the chain; products exact in float32."""
    factors = data.draw(st.permutations(CHAIN_FACTORS), label="factors")
    return [factors[i] for i in _registrations(data, hooks)]


def _by_factor(name, make, factors):
    """A script line that sets `name` to one hook `make(k)` per factor k, keyed by k."""
    return f"{name} = {{k: {make}(k) for k in {list(dict.fromkeys(factors))}}}"


def _prefix_products(factors):
    """What each of the hooks with `factors` sees, as a multiple of what the first one sees."""
    return [float(np.prod(factors[:i])) for i in range(len(factors))]


@behaviour("HOOK-14")
@needs("node_hooks")
@given(data=st.data(), hooks=counts(HOOKS_PER_NODE))
def test_node_post_hooks_see_and_replace_the_gradients_of_the_inputs(engine, data, hooks):
    """h.grad_fn's post-hooks get (grad_inputs, grad_outputs): d out / dh once, and the gradient
    the node computed for each operand, None for one that does not require grad. One to five
    hooks, each returning what it got times its own k, run in registration order, each on the
    previous one's result (a function registered twice runs twice); the paths through h are
    scaled by the product of the k."""
    program, hooked = _recorded(engine, data)
    node = program.node(hooked)
    factors = _chained_factors(data, hooks)
    script = Script(engine)
    script.build(program)
    script.run("seen = []",
               "def post(k):",
               "    def hook(grad_inputs, grad_outputs):",
               f"        seen.append(([{COPY} for g in grad_inputs], [{COPY} for g in grad_outputs]))",
               "        return tuple(None if g is None else g * k for g in grad_inputs)",
               "    return hook",
               _by_factor("posts", "post", factors),
               *[f"{hooked}.grad_fn.register_hook(posts[{k}])" for k in factors],
               *_removed_hook(hooked, "register_hook"),
               "out.backward()")
    script.check_equal("len(seen)", hooks, why=f"each of the {hooks} post-hooks runs once")
    expected = analytic_grads(program, wrt=[hooked, *node.args])
    values = program.evaluate()
    operands = OPS[node.op].vjp(expected[hooked], tuple(values[a] for a in node.args),
                                node.param, values[hooked])
    for call, before in enumerate(_prefix_products(factors)):
        script.check(f"len(seen[{call}][1]) == 1", f"grad_outputs has {{len(seen[{call}][1])}} entries, expected 1")
        script.check_close(f"seen[{call}][1][0]", expected[hooked], dtype=program.dtype,
                           oracle=f"analytic d out / d {hooked}", magnitude=expected.magnitude)
        script.check_equal(f"len(seen[{call}][0])", len(node.args),
                           why=f"grad_inputs has one entry per operand of {node.op}")
        for i, (arg, gradient) in enumerate(zip(node.args, operands)):
            if program.requires_grad(arg):
                script.check_close(f"seen[{call}][0][{i}]", before * gradient, dtype=program.dtype,
                                   oracle=f"vjp of {node.op} for {arg} x {before} (the earlier hooks)",
                                   magnitude=abs(before) * expected.magnitude)
            else:
                script.check_equal(f"seen[{call}][0][{i}]", None, why=f"{arg} does not require grad")
    assert_grads_with_paths_through_scaled(script, program, hooked, float(np.prod(factors)),
                                           how="node post-hooks")


@behaviour("HOOK-15")
@needs("node_hooks")
@given(data=st.data(), hooks=counts(HOOKS_PER_NODE))
def test_node_pre_hooks_see_and_replace_the_gradient_the_node_consumes(engine, data, hooks):
    """h.grad_fn's pre-hooks get (d out / dh,). One to five hooks, each returning what it got
    times its own k, run in registration order, each on the previous one's result (a function
    registered twice runs twice); the paths through h are scaled by the product of the k."""
    program, hooked = _recorded(engine, data)
    factors = _chained_factors(data, hooks)
    script = Script(engine)
    script.build(program)
    script.run("seen = []",
               "def pre(k):",
               "    def hook(grad_outputs):",
               f"        seen.append([{COPY} for g in grad_outputs])",
               "        return tuple(g * k for g in grad_outputs)",
               "    return hook",
               _by_factor("pres", "pre", factors),
               *[f"{hooked}.grad_fn.register_prehook(pres[{k}])" for k in factors],
               *_removed_hook(hooked, "register_prehook"),
               "out.backward()")
    script.check(f"len(seen) == {hooks} and all(len(grads) == 1 for grads in seen)",
                 f"expected {hooks} pre-hook calls with one gradient each, got {{seen}}")
    expected = analytic_grads(program, wrt=[hooked])
    for call, before in enumerate(_prefix_products(factors)):
        script.check_close(f"seen[{call}][0]", before * expected[hooked], dtype=program.dtype,
                           oracle=f"analytic d out / d {hooked} x {before} (the earlier hooks)",
                           magnitude=abs(before) * expected.magnitude)
    assert_grads_with_paths_through_scaled(script, program, hooked, float(np.prod(factors)),
                                           how="node pre-hooks")


@behaviour("HOOK-15")
@needs("node_hooks", "custom_function")
@given(factor=FACTORS, twice=st.booleans())
def test_a_node_of_two_outputs_gives_its_pre_hook_both_gradients(engine, factor, twice):
    """The pre-hook of a node with two outputs (a custom Function's) gets both outputs'
    gradients, in output order, and may replace either, also with one tensor for both (k times
    a's gradient, `twice`)."""
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
               f"    replaced = grad_outputs[0] * {factor}",
               f"    return (replaced, {'replaced' if twice else 'grad_outputs[1]'})",
               "a.grad_fn.register_prehook(pre)",
               "(a.sum() + (b * 5).sum()).backward()")
    script.check("len(seen) == 1 and len(seen[0]) == 2",
                 "expected one pre-hook call with two gradients, got {seen}")
    script.check_close("seen[0][0]", np.ones(2), dtype="float32", oracle="d out / d a = 1")
    script.check_close("seen[0][1]", np.full(2, 5.0), dtype="float32", oracle="d out / d b = 5")
    b_grad = 3.0 * factor if twice else 15.0
    script.check_close("x.grad", np.full(2, 2.0 * factor + b_grad), dtype="float32",
                       oracle=f"2 k + 3 x {'k' if twice else 5}, with the hook's k on a's gradient",
                       magnitude=abs(2.0 * factor) + abs(b_grad))


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


def _around_a_node(hooked, kinds, tensor_factors, pre_factors):
    """The registrations of HOOK-18 on `hooked` in the order `kinds` ('tensor', 'retain', 'pre' or
    'post' each): the i-th hook of a kind logs (kind, i, what it saw) to `fired`; tensor hooks
    and pre-hooks scale the gradient by their factors."""
    made = {"tensor": 0, "pre": 0, "post": 0}
    lines = []
    for kind in kinds:
        if kind == "retain":
            lines.append(f"{hooked}.retain_grad()")
            continue
        i, made[kind] = made[kind], made[kind] + 1
        lines.append({
            "tensor": f"{hooked}.register_hook("
                      f"lambda g: fired.append(('tensor', {i}, None)) or g * {tensor_factors[i]})",
            "pre": f"{hooked}.grad_fn.register_prehook(lambda grad_outputs: fired.append(('pre', {i}, "
                   f"[{COPY} for g in [*grad_outputs, {hooked}.grad]])) or (grad_outputs[0] * {pre_factors[i]},))",
            "post": f"{hooked}.grad_fn.register_hook("
                    f"lambda grad_inputs, grad_outputs: fired.append(('post', {i}, None)))",
        }[kind])
    return lines


@behaviour("HOOK-18")
@needs("node_hooks", "hooks")   # tensor hooks fire first
@given(data=st.data(), hooks=counts(HOOKS_PER_NODE))
def test_hooks_around_a_node_fire_in_the_documented_order(engine, data, hooks):
    """On an intermediate h, one to five each of h's tensor hooks (x a_i), pre-hooks (x b_i) and
    post-hooks of h.grad_fn, and retain_grad, registered in any order, fire as the tensor hooks,
    then the pre-hooks, then the post-hooks, each kind in registration order; when the pre-hooks
    run, h.grad already holds A d out / dh (A the product of the a_i), and keeps it (the
    pre-hooks' replacements are not stored); pre-hook i gets A b_1 ... b_(i-1) d out / dh; the
    paths through h carry A B."""
    program, hooked = _recorded(engine, data, candidates=recorded_intermediates)
    tensor_factors, pre_factors = _chained_factors(data, hooks), _chained_factors(data, hooks)
    kinds = data.draw(st.permutations(["tensor", "pre", "post"] * hooks + ["retain"]),
                      label="registration order")
    script = Script(engine)
    script.build(program)
    script.run("fired = []", *_around_a_node(hooked, kinds, tensor_factors, pre_factors),
               "out.backward()")
    order = [(kind, i) for kind in ("tensor", "pre", "post") for i in range(hooks)]
    script.check_equal("[(kind, i) for kind, i, _ in fired]", order,
                       why="tensor hooks, then pre-hooks, then post-hooks, each in registration order")
    expected = analytic_grads(program, wrt=[hooked])
    first = float(np.prod(tensor_factors))
    pre_seen = [before * first * expected[hooked] for before in _prefix_products(pre_factors)]
    script.check_close(f"np.stack([seen[0] for _, _, seen in fired[{hooks}:{2 * hooks}]])",
                       np.stack(pre_seen), dtype=program.dtype,
                       oracle=f"analytic x {first} (tensor hooks) x the earlier pre-hooks' factors",
                       magnitude=max(abs(first) * abs(before) for before in _prefix_products(pre_factors))
                       * expected.magnitude)
    retained = first * expected[hooked]
    script.check_close(f"np.stack([seen[1] for _, _, seen in fired[{hooks}:{2 * hooks}]])",
                       np.stack([retained] * hooks), dtype=program.dtype,
                       oracle=f"analytic x {first} (tensor hooks): {hooked}.grad as each pre-hook ran",
                       magnitude=abs(first) * expected.magnitude)
    script.check_close(f"{hooked}.grad", retained, dtype=program.dtype,
                       oracle=f"analytic x {first} (tensor hooks): {hooked}.grad after backward",
                       magnitude=abs(first) * expected.magnitude)
    assert_grads_with_paths_through_scaled(script, program, hooked,
                                           first * float(np.prod(pre_factors)),
                                           how="tensor hooks, then pre-hooks")


@behaviour("HOOK-18")
@needs("node_hooks", "post_accumulate_hooks", "graph", "hooks")
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
@given(inputs=st.integers(2, 3), same=st.booleans(), number=st.booleans())
def test_a_module_hook_gets_one_grad_input_per_input(engine, inputs, same, number):
    """With k tensor inputs that require grad, grad_input holds k gradients, each at its input's
    place, also when one tensor is passed k times; a number argument gets None there. For
    w x_1 ... x_k, input i's gradient is w times the other inputs; the grad_input that the hook
    returns (entry i times i + 2) reaches each input from its place."""
    xs = [np.array([1.5, -0.5]) + (0 if same else i) for i in range(inputs)]
    tensors = ["x"] * inputs if same else [f"xs[{i}]" for i in range(inputs)]
    args = tensors[:1] + ["0.5"] * number + tensors[1:]
    script = Script(engine)
    script.run(*PRODUCT)
    script.run("module, seen = Product(), []",
               "def hook(module, grad_input, grad_output):",
               f"    seen.append([{COPY} for g in grad_input])",
               "    return tuple(None if g is None else g * (i + 2) for i, g in enumerate(grad_input))",
               "module.register_full_backward_hook(hook)",
               "x = torch.tensor([1.5, -0.5], requires_grad=True)" if same else
               f"xs = [torch.tensor([1.5 + i, -0.5 + i], requires_grad=True) for i in range({inputs})]",
               f"module({', '.join(args)}).sum().backward()")
    script.check(f"len(seen) == 1 and len(seen[0]) == {len(args)}",
                 f"expected one call with {len(args)} grad_input entries", show=("seen",))
    scale = 0.5 if number else 1.0
    grads = [np.array([2.0, 3.0]) * scale * np.prod(xs[:i] + xs[i + 1:], axis=0) for i in range(inputs)]
    places = [0] + [i + number for i in range(1, inputs)]
    for place, grad in zip(places, grads):
        script.check_close(f"seen[0][{place}]", grad, dtype="float32", oracle="w x the other inputs")
    if number:
        script.check_equal("seen[0][1]", None, why="the argument 0.5 is not a tensor")
    returned = [(place + 2) * grad for place, grad in zip(places, grads)]
    for name, grad in [("x", sum(returned))] if same else zip(tensors, returned):
        script.check_close(f"{name}.grad", grad, dtype="float32", oracle="the hook's grad_input",
                           magnitude=float(np.abs(grad).max()))


SPLIT = ("class Split(torch.nn.Module):  # (a k, 7, b + 3), then a k again `repeat` times",
         "    def __init__(self, repeat):",
         "        super().__init__()",
         "        self.repeat = repeat",
         "    def forward(self, a, k, b):",
         "        first = a * k",
         "        return (first, 7, b + 3) + (first,) * self.repeat")


@behaviour("HOOK-12")
@needs("nn", "module_hooks", "graph")
@given(repeat=st.integers(0, 1))
def test_module_hooks_see_each_result_and_argument_at_its_place(engine, repeat):
    """For a module of arguments (a, 2.0, b) and results (a k, 7, b + 3), maybe a k again (one
    tensor returned twice): its tensor results come out of one node, whose next_functions lead
    to their nodes in order. The pre-hook gets one grad_output per result, None for the number,
    and what it returns (entry i times its own factor) reaches each result's backward; the full
    hook gets that and one grad_input per argument, None for the number, and what it returns
    reaches a and b."""
    weights, factors = (1.0, None, 10.0, 100.0)[:3 + repeat], (5.0, None, -3.0, 4.0)[:3 + repeat]
    replaced = [None if w is None else w * f for w, f in zip(weights, factors)]
    script = Script(engine)
    script.run(*SPLIT)
    script.run(f"module, seen = Split({repeat}), []",
               "def pre(module, grad_output):",
               f"    seen.append([{COPY} for g in grad_output])",
               f"    return tuple(None if g is None else g * k for g, k in zip(grad_output, {list(factors)}))",
               "def full(module, grad_input, grad_output):",
               f"    seen.append(([{COPY} for g in grad_input], [{COPY} for g in grad_output]))",
               "    return (grad_input[0] * 0.5, None, grad_input[2] * -1.0)",
               "module.register_full_backward_pre_hook(pre)",
               "module.register_full_backward_hook(full)",
               "a = torch.tensor([1.5, -0.5], requires_grad=True)",
               "b = torch.tensor([2.0, 0.25], requires_grad=True)",
               "out = module(a, 2.0, b)",
               f"sum((o * w).sum() for o, w in zip(out, {list(weights)}) if w is not None).backward()")
    script.check_equal("out[1]", 7, why="a number result is returned as it is")
    script.check(f"all(out[i].grad_fn is out[0].grad_fn for i in {[2, 3][:1 + repeat]})",
                 "the module's tensor results come out of different nodes")
    script.check_equal("[node.name() for node, _ in out[0].grad_fn.next_functions]",
                       ["MulBackward0", "AddBackward0"] + ["MulBackward0"] * repeat,
                       why="the results' node leads to a k's and b + 3's nodes, in result order")
    script.check(f"len(seen) == 2 and len(seen[0]) == {3 + repeat} and seen[0][1] is None",
                 f"expected a pre-hook call with {3 + repeat} grad_output entries, the second None",
                 show=("seen",))
    ones = np.ones(2)
    for i, w in enumerate(weights):
        if w is not None:
            script.check_close(f"seen[0][{i}]", w * ones, dtype="float32", oracle=f"d loss / d out[{i}]")
            script.check_close(f"seen[1][1][{i}]", replaced[i] * ones, dtype="float32",
                               oracle=f"d loss / d out[{i}] x {factors[i]} (the pre-hook)")
    a_grad = 2.0 * (replaced[0] + (replaced[3] if repeat else 0.0)) * ones
    script.check(f"len(seen[1][0]) == 3 and seen[1][0][1] is None and len(seen[1][1]) == {3 + repeat}",
                 "expected grad_input entries for (a, 2.0, b), the second None", show=("seen",))
    script.check_close("seen[1][0][0]", a_grad, dtype="float32", oracle="2 x the replaced grad_output of a k")
    script.check_close("seen[1][0][2]", replaced[2] * ones, dtype="float32",
                       oracle="the replaced grad_output of b + 3")
    script.check_close("a.grad", 0.5 * a_grad, dtype="float32", oracle="grad_input[0] x 0.5 (the hook)")
    script.check_close("b.grad", -replaced[2] * ones, dtype="float32", oracle="grad_input[2] x -1 (the hook)")


@behaviour("HOOK-12")
@needs("nn", "module_hooks")
@pytest.mark.filterwarnings("ignore:Full backward hook is firing:UserWarning")
@given(data=st.data(), inputs=st.integers(1, 3), hooks=counts(HOOKS_PER_MODULE),
       returned=st.sampled_from(["None", "Nones", "a gradient"]))
def test_a_module_hook_without_requiring_inputs_gets_and_may_return_only_nones(engine, data, inputs,
                                                                             hooks, returned):
    """Full backward hooks on a module none of whose inputs requires grad (its parameter does)
    still fire, in registration order (a function registered twice runs twice), with grad_input
    None for each of the inputs; they may return None or a tuple of Nones, and anything else (a
    gradient in the last place) is a RuntimeError, raised by the first hook."""
    result = {"None": "None", "Nones": f"(None,) * {inputs}",
              "a gradient": f"(None,) * {inputs - 1} + (grad_output[0],)"}[returned]
    registrations = _registrations(data, hooks)
    script = Script(engine)
    script.run(*PRODUCT)
    script.run("module, seen = Product(), []",
               "def hook(i):",
               "    def hook(module, grad_input, grad_output):",
               "        seen.append((i, [g is None for g in grad_input]))",
               f"        return {result}",
               "    return hook",
               f"hooks = [hook(i) for i in range({max(registrations) + 1})]",
               *[f"module.register_full_backward_hook(hooks[{i}])" for i in registrations],
               f"loss = module(*[torch.tensor([1.5, -0.5]) for _ in range({inputs})]).sum()")
    if returned == "a gradient":
        script.raises("loss.backward()", "no input requires gradient should always return None")
        registrations = registrations[:1]
    else:
        with script.control():
            script.run("loss.backward()")
            script.check_close("module.w.grad", np.array([1.5, -0.5]) ** inputs,
                               dtype="float32", oracle="d(w x^k)/dw = x^k")
    script.check_equal("seen", [(i, [True] * inputs) for i in registrations],
                       why=f"the hooks registered as {registrations}, each with {inputs} "
                       "grad_input entries, all None")


@behaviour("HOOK-22")
@needs("nn", "module_hooks")
@pytest.mark.filterwarnings("ignore:Full backward hook is firing:UserWarning")
@given(inputs=st.integers(1, 3), input_requires_grad=st.booleans(), hooks=counts(HOOKS_PER_MODULE))
def test_module_hooks_keep_no_grad_output_after_backward(engine, inputs, input_requires_grad,
                                                         hooks):
    """Full backward hooks that keep only weak references to the grad_output they get: after
    backward (and gc) each reference is dead, while the module's output is still held, whether
    or not an input requires grad."""
    flag = ", requires_grad=True" if input_requires_grad else ""
    script = Script(engine)
    script.run(*PRODUCT)
    script.run("import gc, weakref",
               "module, seen = Product(), []",
               "def hook(module, grad_input, grad_output):",
               "    seen.append(weakref.ref(grad_output[0]))",
               *["module.register_full_backward_hook(hook)"] * hooks,
               f"out = module(*[torch.tensor([1.5, -0.5]{flag}) for _ in range({inputs})])",
               "out.backward(torch.tensor([2.0, 4.0]))",
               "gc.collect()")
    script.check_equal("len(seen)", hooks, why=f"{hooks} hooks, one pass")
    script.check("all(ref() is None for ref in seen)",
                 "a grad_output the hooks got is still alive after backward: "
                 "{[ref() for ref in seen]}")


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


@behaviour("HOOK-12")
@needs("nn", "module_hooks")
@given(data=st.data(), layer=_layers(), pre_hooks=counts(HOOKS_PER_MODULE),
       hooks=counts(HOOKS_PER_MODULE))
def test_module_backward_hooks_chain_in_registration_order(engine, data, layer, pre_hooks, hooks):
    """One to four pre-hooks and one to four full hooks on a Linear layer, each returning what it
    got times its own k: the pre-hooks run in registration order, each on the previous one's
    grad_output, then the full hooks, each on the previous one's grad_input and all with the
    last pre-hook's grad_output; a function registered twice runs twice. The parameters'
    gradients are scaled by the pre-hooks' product, x's by the product of all."""
    weight, _, _, c = layer
    pre_factors, factors = _chained_factors(data, pre_hooks), _chained_factors(data, hooks)
    script = Script(engine)
    _build_layer(script, layer, input_requires_grad=True)
    script.run("seen = []",
               "def pre(k):",
               "    return lambda module, go: seen.append(('pre', to_numpy(go[0]).copy())) or (go[0] * k,)",
               "def full(k):",
               "    return lambda module, gi, go: "
               "seen.append((to_numpy(gi[0]).copy(), to_numpy(go[0]).copy())) or (gi[0] * k,)",
               _by_factor("pres", "pre", pre_factors), _by_factor("fulls", "full", factors),
               *[f"lin.register_full_backward_pre_hook(pres[{k}])" for k in pre_factors],
               *[f"lin.register_full_backward_hook(fulls[{k}])" for k in factors],
               "(lin(x) * c).sum().backward()")
    script.check(f"len(seen) == {pre_hooks + hooks} and all(call[0] == 'pre' for call in seen[:{pre_hooks}])",
                 f"expected {pre_hooks} pre-hook calls, then {hooks} hook calls; got {{seen}}")
    scale = float(np.prod(pre_factors))
    input_grad, input_size = c @ weight, float((np.abs(c) @ np.abs(weight)).max())
    for call, before in enumerate(_prefix_products(pre_factors)):
        script.check_close(f"seen[{call}][1]", before * c, dtype="float32",
                           oracle=f"c x {before} (the earlier pre-hooks)", magnitude=abs(before) * 2.0)
    for call, before in enumerate(_prefix_products(factors), start=pre_hooks):
        script.check_close(f"seen[{call}][0]", scale * before * input_grad, dtype="float32",
                           oracle=f"dL/dx = c @ W x {scale} (pre-hooks) x {before} (earlier hooks)",
                           magnitude=abs(scale * before) * input_size)
        script.check_close(f"seen[{call}][1]", scale * c, dtype="float32",
                           oracle=f"c x {scale} (the pre-hooks)", magnitude=abs(scale) * 2.0)
    _check_layer_grads(script, layer, scale_inputs=scale * float(np.prod(factors)),
                       scale_parameters=scale, input_requires_grad=True)


SQUARE = ("class Square(torch.nn.Module):",
          "    def forward(self, t):",
          "        return t * t")


@behaviour("HOOK-12")
@needs("nn", "module_hooks", "autograd_grad", "higher_order")
@given(x=values((2,), "float32"), factor=st.sampled_from([2.0, -1.0, 10.0]))
def test_a_module_hook_fires_only_for_gradients_through_its_outputs(engine, x, factor):
    """For m(t) = t * t with a full hook returning grad_input * k, g = d sum(m(x)) / dx under
    create_graph is 2 k x, through the module's outputs and inputs once. The backward of sum(g)
    reaches the module's input again, but not through its outputs: the hook does not fire again
    (it has no grad_output), and x.grad is 2 k, the k of the first pass's hook recorded in g."""
    script = Script(engine)
    script.run(*SQUARE)
    script.run("module, seen = Square(), []",
               "module.register_full_backward_hook(lambda m, gi, go: seen.append(1) or (gi[0] * "
               f"{factor},))",
               f"x = {tensor_literal(x, 'float32', True)}",
               "(g,) = torch.autograd.grad(module(x).sum(), [x], create_graph=True)")
    script.check_close("g", 2 * factor * x, dtype="float32", oracle=f"2 x x {factor} (the hook)",
                       magnitude=abs(2 * factor * x).max())
    script.run("g.sum().backward()")
    script.check_equal("len(seen)", 1, why="the second backward does not come through the outputs")
    script.check_close("x.grad", np.full(2, 2 * factor), dtype="float32",
                       oracle=f"d sum(2 {factor} x) / dx")


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
    with script.control():
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
@needs("multi_grad_hooks", "hooks")   # on tensors that have register_hook hooks
@pytest.mark.parametrize("mode", ["all", "any"])
@given(data=st.data(), passes=counts(BACKWARD_PASSES), with_spare=st.booleans())
def test_multi_grad_hooks_fire_once_per_backward(engine, mode, data, passes, with_spare):
    """Each chosen tensor has a hook that logs its name, registered before the multi-grad hook.
    In each of one to four backward calls, "all" fires once, after every reached tensor's hook,
    with each tensor's gradient
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
@needs("multi_grad_hooks", "grad_mode", "hooks")
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
