"""Tensor hooks see the gradient flowing into a tensor and may replace it (with a tensor of the
same shape and dtype); the replacement flows on to the tensor's inputs; hooks registered before an
in-place change stay with the old value; autograd.grad fires the hooks on the paths it walks; the
order in which hooks fire shows the order in which nodes run (HOOK-*). Hooks on nodes, modules and
after accumulation are in test_backward_hooks.py."""

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_grads_with_paths_through_scaled
from autograd_conformance.harness.counts import BACKWARD_PASSES, HOOKS_PER_TENSOR, USES_OF_ONE_TENSOR, counts
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script
from autograd_conformance.harness.strategies import SHAPING, programs, recorded_intermediates, recorded_nodes, shapes

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control
pytestmark = needs("hooks")

FACTORS = st.sampled_from([0.0, 2.0, -1.0, 10.0])
# A chained hook's step, `g + 1.0` or `g * -3.0`: shifts and factors do not commute, so any order
# but the registration order gives another gradient (factors exact in float32 keep it exact).
HOOK_STEPS = (("+", 1.0), ("*", -3.0), ("+", -2.0), ("*", 2.0), ("*", 0.5))
# Ops whose torch node saves its own result (probed on torch 2.13): changing that result in place
# makes backward raise (INP-6), so HOOK-11 changes only the results of other ops.
SAVES_ITS_RESULT = {"exp", "tanh", "sigmoid", "relu", "sqrt", "rpow", "pow_tensor"}


def _hooked_node(engine, data):
    """A program with a node to hook (one that requires grad, feeds the output and is not the
    output), and that node's name."""
    program = data.draw(programs(engine, candidates=recorded_intermediates), label="program")
    return program, data.draw(st.sampled_from(recorded_intermediates(program)), label="hooked node")


@behaviour("HOOK-1")
@given(data=st.data(), factor=FACTORS)
def test_leaf_hook_sees_the_gradient_and_replaces_it(engine, data, factor):
    """A hook on a leaf receives d out / d leaf; the tensor it returns is stored in .grad."""
    program = data.draw(programs(engine), label="program")
    leaf = data.draw(st.sampled_from(program.grad_leaves()), label="leaf")
    script = Script(engine)
    script.build(program)
    # The hook keeps a copy of what it saw, which backward cannot change afterwards.
    script.run("seen = []",
               "def hook(grad):",
               "    seen.append(to_numpy(grad).copy())",
               f"    return grad * {factor}",
               f"{leaf.name}.register_hook(hook)",
               "out.backward()")
    expected = analytic_grads(program, wrt=[leaf.name])
    script.check("len(seen) == 1", "the hook ran {len(seen)} times in one backward")
    script.check_close("seen[0]", expected[leaf.name], dtype=program.dtype, oracle="analytic",
                       magnitude=expected.magnitude)
    script.check_close(f"{leaf.name}.grad", factor * expected[leaf.name], dtype=program.dtype,
                       oracle=f"analytic x {factor} (hook result)",
                       magnitude=abs(factor) * expected.magnitude)


@behaviour("HOOK-2")
@given(data=st.data(), factor=FACTORS)
def test_non_leaf_hook_result_flows_to_the_inputs(engine, data, factor):
    """A hook on an intermediate h that returns g * k scales what flows through h: leaf gradients
    are (paths around h) + k * (paths through h)."""
    program, hooked = _hooked_node(engine, data)

    def hook_it(name, line):
        """The hooked node's line, then its hook, registered right after it is computed."""
        return [line, f"{name}.register_hook(lambda g: g * {factor})"]

    script = Script(engine)
    script.build(program, wrap=lambda name, line: hook_it(name, line) if name == hooked else [line])
    script.run("out.backward()")
    assert_grads_with_paths_through_scaled(script, program, hooked, factor, how="tensor hook")


@behaviour("HOOK-3")
@given(data=st.data(), factor=FACTORS, retain_first=st.booleans())
def test_retained_grad_is_the_hook_result(engine, data, factor, retain_first):
    """retain_grad() on a hooked non-leaf stores the hook's result, whichever was called first."""
    program, hooked = _hooked_node(engine, data)
    script = Script(engine)
    script.build(program)
    steps = [f"{hooked}.retain_grad()", f"{hooked}.register_hook(lambda g: g * {factor})"]
    script.run(*(steps if retain_first else reversed(steps)), "out.backward()")
    expected = analytic_grads(program, wrt=[hooked])
    script.check_close(f"{hooked}.grad", factor * expected[hooked], dtype=program.dtype,
                       oracle=f"analytic x {factor}", magnitude=abs(factor) * expected.magnitude)


@behaviour("HOOK-4")
@given(data=st.data())
def test_removed_hooks_do_not_run(engine, data):
    """handle.remove() unregisters a hook: it neither runs nor changes the gradient."""
    program = data.draw(programs(engine), label="program")
    leaf = data.draw(st.sampled_from(program.grad_leaves()), label="leaf")
    script = Script(engine)
    script.build(program)
    script.run("calls = []",
               f"handle = {leaf.name}.register_hook(lambda g: calls.append(1) or g * 10)",
               "handle.remove()",
               "out.backward()")
    script.check("not calls", "a removed hook ran")
    expected = analytic_grads(program, wrt=[leaf.name])
    script.check_close(f"{leaf.name}.grad", expected[leaf.name], dtype=program.dtype,
                       oracle="analytic", magnitude=expected.magnitude)


@behaviour("HOOK-5")
@control("test_hooks.py::test_non_leaf_hook_result_flows_to_the_inputs")
@given(data=st.data())
def test_hooks_need_requires_grad(engine, data):
    """register_hook on a tensor that does not require grad raises RuntimeError."""
    program = data.draw(programs(engine, requires_grad="none", output="any"), label="program")
    name = data.draw(st.sampled_from([leaf.name for leaf in program.leaves]
                                     + [node.name for node in program.nodes]), label="tensor")
    script = Script(engine)
    script.build(program)
    script.raises(f"{name}.register_hook(lambda g: g)")


@behaviour("HOOK-6")
@given(data=st.data(), count=counts(HOOKS_PER_TENSOR, low=2))
def test_hooks_chain_in_registration_order(engine, data, count):
    """Several hooks run in registration order, each on the previous one's result: from two to
    five hooks on one tensor, each adding a shift or scaling by a factor, so that any other order
    (the last ones reversed, one run twice or skipped) gives another gradient. A step drawn twice
    registers the same function object again, which runs once per registration."""
    program = data.draw(programs(engine), label="program")
    leaf = data.draw(st.sampled_from(program.grad_leaves()), label="leaf")
    steps = [data.draw(st.sampled_from(HOOK_STEPS), label=f"hook {i + 1}") for i in range(count)]
    script = Script(engine)
    script.build(program)
    script.run(*(f"step{i} = lambda g: g {op} {value}" for i, (op, value) in enumerate(HOOK_STEPS)),
               *(f"{leaf.name}.register_hook(step{HOOK_STEPS.index(step)})" for step in steps),
               "out.backward()")
    gradients = analytic_grads(program, wrt=[leaf.name])
    expected, magnitude = gradients[leaf.name], gradients.magnitude
    for op, value in steps:
        expected = expected + value if op == "+" else expected * value
        magnitude = magnitude + abs(value) if op == "+" else magnitude * abs(value)
    script.check_close(f"{leaf.name}.grad", expected, dtype=program.dtype,
                       oracle="analytic through the hooks in order", magnitude=magnitude)


@behaviour("HOOK-7")
@given(data=st.data(), passes=counts(BACKWARD_PASSES, low=2))
def test_leaf_hooks_apply_per_backward_before_accumulation(engine, data, passes):
    """A leaf hook transforms each pass's gradient before it is added to .grad: after pass k of
    two to four with hook g * 2 + 1, .grad holds k * (2 g + 1)."""
    program = data.draw(programs(engine), label="program")
    leaf = data.draw(st.sampled_from(program.grad_leaves()), label="leaf")
    script = Script(engine)
    script.build(program)
    script.run(f"{leaf.name}.register_hook(lambda g: g * 2 + 1)", "grads = []",
               *[f"out.backward(retain_graph=True)\ngrads.append(to_numpy({leaf.name}.grad).copy())"]
               * passes)
    gradients = analytic_grads(program, wrt=[leaf.name])
    script.check_close("np.stack(grads)",
                       np.stack([k * (2 * gradients[leaf.name] + 1) for k in range(1, passes + 1)]),
                       dtype=program.dtype, oracle="analytic: k x (2 g + 1) after pass k",
                       magnitude=passes * (2 * gradients.magnitude + 1))


@behaviour("HOOK-10")
@given(data=st.data(), uses=counts(USES_OF_ONE_TENSOR, low=2))
def test_a_tensor_used_several_times_fires_its_hook_once(engine, data, uses):
    """A hooked tensor used several times gets one hook call, with the summed gradient."""
    program = data.draw(programs(engine), label="program")
    script = Script(engine)
    script.build(program)
    event(f"hooked output is a leaf: {program.output in {leaf.name for leaf in program.leaves}}")
    script.check("out.requires_grad", "out does not require grad, but a leaf on its path does")
    # out * 1.0 + out * 2.0 + ... + out * uses: d total / d out is uses * (uses + 1) / 2. The
    # hook keeps a copy of what it saw, which backward cannot change afterwards.
    script.run("calls = []",
               "out.register_hook(lambda g: calls.append(to_numpy(g).copy()))",
               "total = out * 1.0",
               *[f"total = total + out * {float(weight)}" for weight in range(2, uses + 1)],
               "total.sum().backward()")
    script.check_equal("len(calls)", 1,
                       why=f"the hook on a tensor used {uses} times runs once, on the sum")
    expected = uses * (uses + 1) / 2
    script.check(f"np.allclose(calls[0], {expected})",
                 f"the hook did not see {expected}", show=("calls[0]",))


@behaviour("HOOK-13")
@given(data=st.data(), branches=counts(USES_OF_ONE_TENSOR, low=2))
def test_branches_ready_together_run_latest_created_first(engine, data, branches):
    """Of the nodes ready to run at the same time, torch runs the most recently created first:
    the hooks on branches b_i = (out * c_i).sum() fire from the last created to the first, whether
    the branches are added into one output or (where the engine has autograd.backward) are the
    roots of one torch.autograd.backward call, listed in any order."""
    program = data.draw(programs(engine, output="any"), label="program")
    as_roots = engine.has("autograd_backward") and data.draw(st.booleans(), label="as roots")
    order = list(range(branches))
    if as_roots:
        order = data.draw(st.permutations(order), label="roots' order")
    script = Script(engine)
    script.build(program)
    script.run("fired = []",
               *[line for i in range(branches)
                 for line in (f"b{i} = (out * {float(i + 2)}).sum()",
                              f"b{i}.register_hook(lambda g: fired.append({i}))")],
               f"torch.autograd.backward([{', '.join(f'b{i}' for i in order)}])" if as_roots
               else f"({' + '.join(f'b{i}' for i in order)}).backward()")
    expected = list(reversed(range(branches)))
    script.check_equal("fired", expected,
                       why="the branches' hooks fire from the last created to the first")


@behaviour("HOOK-13")
@needs("autograd_backward")
@given(data=st.data(), leaves=st.integers(2, 3))
def test_leaves_given_as_roots_accumulate_in_the_roots_order(engine, data, leaves):
    """torch.autograd.backward([x_i, ...], [g_i, ...]) on leaves themselves, listed in a drawn
    order: their accumulations run before any other node, two or three of them in the order
    listed (torch's ready heap keeps that order for up to three equal ranks; for more, its own
    binary-heap order, which the reference engine follows but the rule does not pin), so their
    hooks fire in that order."""
    shape = data.draw(shapes(), label="shape")
    order = data.draw(st.permutations(range(leaves)), label="roots' order")
    script = Script(engine)
    script.run("fired = []",
               *[line for i in range(leaves)
                 for line in (f"x{i} = torch.zeros({shape}, requires_grad=True)",
                              f"x{i}.register_hook(lambda g: fired.append({i}))")],
               f"torch.autograd.backward([{', '.join(f'x{i}' for i in order)}], "
               f"[{', '.join(f'torch.ones({shape})' for _ in order)}])")
    script.check_equal("fired", list(order), why="the leaves' hooks fire in the roots' order")


def _other_shapes(shape):
    """Shapes a hook's result must not have for a gradient of `shape`: as many elements in another
    layout, and one element more."""
    numel = int(np.prod(shape, dtype=int))
    return [shape + (1,), (numel + 1,)]


@behaviour("HOOK-8")
@control("test_hooks.py::test_non_leaf_hook_result_flows_to_the_inputs")
@given(data=st.data())
def test_a_hook_may_not_change_the_gradients_shape_or_dtype(engine, data):
    """A hook on a leaf or an intermediate that returns a tensor of another shape (or, where the
    engine converts dtypes, another dtype) than its gradient makes backward raise."""
    program = data.draw(programs(engine), label="program")
    hooked = data.draw(st.sampled_from([leaf.name for leaf in program.grad_leaves()]
                                       + recorded_intermediates(program)), label="hooked tensor")
    changes = ["shape"] + (["dtype"] if engine.has("dtype_conversion") else [])
    if data.draw(st.sampled_from(changes), label="the hook changes") == "shape":
        shape = data.draw(st.sampled_from(_other_shapes(program.evaluate()[hooked].shape)),
                          label="returned shape")
        returned = f"torch.zeros({', '.join(map(str, shape))}, dtype=g.dtype)"
    else:
        returned = f"g.to(torch.{'float64' if program.dtype == 'float32' else 'float32'})"
    script = Script(engine)
    script.build(program)
    script.run(f"{hooked}.register_hook(lambda g: {returned})")
    script.raises("out.backward()")


def _changeable(program):
    """Recorded intermediates that an in-place op may change: no views, and not saved by their own
    node."""
    return [name for name in recorded_intermediates(program)
            if program.node(name).op not in SAVES_ITS_RESULT | set(SHAPING)]


@behaviour("HOOK-11")
@needs("inplace")
@given(data=st.data(), k=st.sampled_from([1.0, -0.5, 2.0]))
def test_hooks_registered_before_an_in_place_op_see_the_old_value(engine, data, k):
    """h.add_((h - h.detach()) * k) right after h is computed changes no value (the later ops see
    the same h, so they stay in their domains), but the gradient w.r.t. h's old value is (1 + k)
    times the gradient w.r.t. its new one: a hook registered before the op gets (1 + k) d out / dh,
    one registered after it d out / dh."""
    program = data.draw(programs(engine, candidates=_changeable), label="program")
    changed = data.draw(st.sampled_from(_changeable(program)), label="changed node")

    def change(name, line):
        if name != changed:
            return [line]
        return [line, f"{name}.register_hook(lambda g: seen.__setitem__('before', to_numpy(g).copy()))",
                f"{name}.add_(({name} - {name}.detach()) * {k})",
                f"{name}.register_hook(lambda g: seen.__setitem__('after', to_numpy(g).copy()))"]

    script = Script(engine)
    script.run("seen = {}")
    script.build(program, wrap=change)
    script.run("out.backward()")
    expected = analytic_grads(program, wrt=[changed])
    script.check("sorted(seen) == ['after', 'before']", "the hooks that ran: {sorted(seen)}")
    for hook, factor in (("before", 1 + k), ("after", 1.0)):
        script.check_close(f"seen[{hook!r}]", factor * expected[changed], dtype=program.dtype,
                           oracle=f"analytic d out / d {changed} x {factor}",
                           magnitude=factor * expected.magnitude)


@behaviour("HOOK-17")
@needs("autograd_grad")
@given(data=st.data())
def test_autograd_grad_fires_the_hooks_on_the_paths_to_its_input(engine, data):
    """Every tensor that requires grad has a hook; autograd.grad(out, [h]) for an intermediate h
    fires h's (with d out / dh) and those of the tensors between out and h, once each, though h's
    grad_fn does not run; the leaves' and the other tensors' hooks do not fire."""
    program = data.draw(programs(engine, candidates=recorded_intermediates), label="program")
    target = data.draw(st.sampled_from(recorded_intermediates(program)), label="input")
    hooked = ([leaf.name for leaf in program.leaves if leaf.requires_grad]
              + [node.name for node in program.nodes if program.requires_grad(node.name)])
    on_paths = sorted(name for name in recorded_nodes(program)
                      if target in program.ancestors(name))
    script = Script(engine)
    script.build(program)
    script.run("fired = {}",
               *[f"{name}.register_hook(lambda g: fired.setdefault({name!r}, []).append(to_numpy(g).copy()))"
                 for name in hooked],
               f"torch.autograd.grad(out, [{target}])")
    script.check_equal("sorted(fired)", on_paths,
                       why=f"the hooked tensors on the paths from out to {target}")
    script.check("all(len(calls) == 1 for calls in fired.values())",
                 "hooks fired more than once: {fired}")
    expected = analytic_grads(program, wrt=[target])
    script.check_close(f"fired[{target!r}][0]", expected[target], dtype=program.dtype,
                       oracle="analytic", magnitude=expected.magnitude)


# A Function of two outputs, 2x and 3x, whose backward sees each output's gradient.
TWO_OUTPUTS = """\
class TwoOutputs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2.0, x * 3.0

    @staticmethod
    def backward(ctx, ga, gb):
        return ga * 2.0 + gb * 3.0"""


@behaviour("HOOK-23")
@needs("custom_function")
@given(order=st.lists(st.sampled_from("ab"), min_size=2, max_size=4), uses_a=st.booleans(),
       factor=st.sampled_from([2.0, -1.0, 10.0]))
def test_hooks_on_the_outputs_of_a_function_get_their_own_gradients(engine, order, uses_a,
                                                                    factor):
    """a, b = TwoOutputs.apply(x), hooks registered on a and b in `order`, each recording what
    it gets, the last one also scaling its gradient by `factor`; loss = sum(10 b) (+ sum(a)):
    an output's hooks run together, in the order of each output's first hook, a's with None
    where a is unused; the scaled gradient reaches x."""
    script = Script(engine)
    script.run(TWO_OUTPUTS, "x = torch.tensor([1.0, 2.0], requires_grad=True)",
               "a, b = TwoOutputs.apply(x)", "seen = []")
    for k, name in enumerate(order):
        scale = f" * {factor}" if k == len(order) - 1 else ""
        script.run(f"{name}.register_hook(lambda g: seen.append(({k}, None if g is None "
                   f"else to_numpy(g).tolist())) or (None if g is None else g{scale}))")
    script.run(f"loss = (b * 10.0).sum(){' + a.sum()' if uses_a else ''}", "loss.backward()")
    grads = {"a": [1.0, 1.0] if uses_a else None, "b": [10.0, 10.0]}
    last = order[-1]
    final = grads if grads[last] is None else {**grads, last: [g * factor for g in grads[last]]}
    groups = sorted(set(order), key=order.index)
    expected = [(k, grads[name]) for name in groups for k, n in enumerate(order) if n == name]
    script.check_equal("seen", expected, why="each output's hooks together, in registration "
                       "order, the outputs in the order of their first hook")
    ga, gb = (final["a"] or [0.0, 0.0]), final["b"]
    script.check_equal("to_numpy(x.grad).tolist()", [2.0 * p + 3.0 * q for p, q in zip(ga, gb)],
                       why="2 ga + 3 gb, with the last hook's scaling")
