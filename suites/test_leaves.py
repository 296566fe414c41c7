"""Leaves keep their gradients, non-leaves do not, unless retain_grad() asks for it (LEAF-*)."""

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads
from autograd_conformance.harness.counts import BACKWARD_PASSES, counts
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script, tensor_literal
from autograd_conformance.harness.strategies import programs, recorded_nodes, shapes, values

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control


@behaviour("LEAF-1")
@given(data=st.data())
def test_created_tensors_are_leaves(engine, data):
    """Every tensor the user creates is a leaf, whether it requires grad or not ("mixed": each
    program has leaves of both kinds)."""
    program = data.draw(programs(engine, max_ops=1, requires_grad="mixed"), label="program")
    script = Script(engine)
    script.build(program)
    for leaf in program.leaves:
        name = leaf.name
        script.check(f"{name}.is_leaf", f"{name} was created by the user but is_leaf is False")
        script.check_equal(f"{name}.grad_fn", None, why=f"{name} is a leaf")


@behaviour("LEAF-3")
@given(data=st.data())
def test_results_requiring_grad_are_non_leaves(engine, data):
    program = data.draw(programs(engine), label="program")
    script = Script(engine)
    script.build(program)
    for node in program.nodes:
        if program.requires_grad(node.name):
            script.check(f"not {node.name}.is_leaf",
                         f"{node.name} = {node.op}(...) requires grad but is a leaf")
            script.check(f"{node.name}.grad_fn is not None",
                         f"{node.name} = {node.op}(...) has no grad_fn")


@behaviour("LEAF-5")
@given(data=st.data())
def test_leaf_grads_are_kept_with_leaf_shape_and_dtype(engine, data):
    program = data.draw(programs(engine), label="program")
    script = Script(engine)
    script.build(program)
    script.run("out.backward()")
    expected = analytic_grads(program)
    for leaf in program.grad_leaves():
        name, shape = leaf.name, leaf.values.shape
        script.check_grad_like(name, shape)
        script.check_close(f"{name}.grad", expected[name], dtype=program.dtype,
                           oracle="analytic", magnitude=expected.magnitude)


@behaviour("LEAF-5")
def test_seed_mean_of_squares(engine):
    """Seed 001: a = [2, 3]; out = ((a + 3) ** 2 * 3).mean() is 91.5 and a.grad is [15, 18]."""
    script = Script(engine)
    script.run("a = torch.tensor([2.0, 3.0], requires_grad=True)",
               "out = ((a + 3) ** 2 * 3).mean()")
    script.check("out.item() == 91.5", "out is {out.item()}, expected 91.5")
    script.run("out.backward()")
    script.check("a.grad is not None and a.grad.numel() == 2",
                 "a.grad is {a.grad}, expected two elements")
    script.check("[a.grad[0].item(), a.grad[1].item()] == [15.0, 18.0]",
                 "a.grad is {a.grad}, expected [15.0, 18.0]")


@behaviour("LEAF-5", "LEAF-6")
def test_seed_w_x_product(engine):
    """Seed 002: w = 1, x = 2, y = (w + x) * (w + 1) gives w.grad == 5, x.grad == 2, and the
    intermediate a = w + x keeps no gradient."""
    script = Script(engine)
    script.run("w = torch.tensor([1.0], requires_grad=True)",
               "x = torch.tensor([2.0], requires_grad=True)",
               "a = w + x", "b = w + 1", "y = a * b", "y.backward()")
    script.check("w.grad is not None", "w.grad is None", behaviour="LEAF-5")
    script.check("x.grad is not None", "x.grad is None", behaviour="LEAF-5")
    script.check("w.grad.item() == 5.0 and x.grad.item() == 2.0",
                 "w.grad is {w.grad} and x.grad is {x.grad}, expected 5 and 2",
                 behaviour="LEAF-5")
    script.check("a.grad is None and b.grad is None",
                 "the intermediates kept .grad: a.grad is {a.grad}, b.grad is {b.grad}",
                 behaviour="LEAF-6")


@behaviour("LEAF-6")
@given(data=st.data())
def test_non_leaf_grads_are_freed(engine, data):
    program = data.draw(programs(engine), label="program")
    script = Script(engine)
    script.build(program)
    script.run("out.backward()")
    for node in program.nodes:
        script.check_equal(f"{node.name}.grad", None, why=f"non-leaf {node.name} = {node.op}(...)")


def _program_and_recorded_node(engine, data, label):
    """A program (its output of any shape) and one of its nodes that require grad and feed the
    output, the output itself included."""
    program = data.draw(programs(engine, output="any", candidates=recorded_nodes),
                        label="program")
    name = data.draw(st.sampled_from(recorded_nodes(program)), label=label)
    event(f"{label} is the output itself: {name == program.output}")
    return program, name


@behaviour("LEAF-8")
@given(data=st.data())
def test_retain_grad_keeps_a_non_leaf_gradient(engine, data):
    program, retained = _program_and_recorded_node(engine, data, "retained")
    ones = np.ones(program.evaluate()[program.output].shape)
    expected = analytic_grads(program, ones, wrt=[retained])
    script = Script(engine)
    script.build(program)
    script.run(f"{retained}.retain_grad()", "out.sum().backward()")
    script.check(f"{retained}.grad is not None",
                 f"{retained}.retain_grad() was called but its .grad is None")
    script.check_close(f"{retained}.grad", expected[retained], dtype=program.dtype,
                       oracle="analytic", magnitude=expected.magnitude)


@behaviour("LEAF-15")
@given(data=st.data())
def test_retains_grad_reports_retain_grad_on_non_leaves_only(engine, data):
    """retains_grad is False on every leaf and node at first; after retain_grad() on some recorded
    nodes and on every leaf that requires grad, and a backward, it is True on those nodes only."""
    program = data.draw(programs(engine, output="any", candidates=recorded_nodes),
                        label="program")
    retained = sorted(data.draw(st.sets(st.sampled_from(recorded_nodes(program)), min_size=1),
                                label="retained"))
    requiring = [leaf.name for leaf in program.leaves if leaf.requires_grad]
    names = [leaf.name for leaf in program.leaves] + [node.name for node in program.nodes]
    script = Script(engine)
    script.build(program)
    script.run("before = {" + ", ".join(f"{name!r}: {name}.retains_grad" for name in names) + "}")
    script.check("not any(before.values())", "retains_grad is True before any retain_grad()",
                 show=("before",))
    script.run(*(f"{name}.retain_grad()" for name in retained + requiring), "out.sum().backward()")
    for name in names:
        script.check_equal(f"{name}.retains_grad", name in retained,
                           why=f"retain_grad() was called on {retained} (non-leaves) and on the "
                               f"leaves {requiring}, where it is a no-op")


@behaviour("LEAF-12")
@needs("backward_inputs")
@given(data=st.data(), passes=counts(BACKWARD_PASSES))
def test_backward_inputs_gives_a_named_non_leaf_its_gradient(engine, data, passes):
    """backward(inputs=[h, ...]) with h a non-leaf stores in h.grad the gradient of out.sum()
    with respect to h, and each later pass adds it again, out of place as retain_grad() does: the
    .grad of the pass before keeps its value (checked after every one of up to four passes); once
    per pass also where h.retain_grad() was called first (drawn). Leaves named beside h get
    theirs, and the leaves not named keep .grad None."""
    program, name = _program_and_recorded_node(engine, data, "non-leaf input")
    retained = data.draw(st.booleans(), label=f"{name}.retain_grad() first")
    leaves = [leaf.name for leaf in program.grad_leaves()]
    named = data.draw(st.lists(st.sampled_from(leaves), unique=True), label="leaves named too")
    ones = np.ones(program.evaluate()[program.output].shape)
    expected = analytic_grads(program, ones, wrt=[name] + named)
    script = Script(engine)
    script.build(program)
    if retained:
        script.run(f"{name}.retain_grad()")
    for done in range(1, passes + 1):
        script.run(f"out.sum().backward(inputs=[{', '.join([name] + named)}], retain_graph=True)")
        script.check(f"{name}.grad is not None", f"backward(inputs=[{name}]) left {name}.grad None")
        if done > 1:
            script.check_close("earlier", (done - 1) * expected[name], dtype=program.dtype,
                               oracle=f"analytic, times {done - 1} passes: the earlier "
                               f"{name}.grad, kept", magnitude=(done - 1) * expected.magnitude)
        for tensor in [name] + named:
            script.check_close(f"{tensor}.grad", done * expected[tensor], dtype=program.dtype,
                               oracle=f"analytic, times {done} passes",
                               magnitude=done * expected.magnitude)
        script.run(f"earlier = {name}.grad")
    for leaf in leaves:
        if leaf not in named:
            script.check_equal(f"{leaf}.grad", None, why=f"{leaf} is not in inputs")


THREE_MULTIPLES = '''\
class ThreeMultiples(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2.0, x * 3.0, x * 4.0

    @staticmethod
    def backward(ctx, grad_a, grad_b, grad_c):
        return grad_a * 2.0 + grad_b * 3.0 + grad_c * 4.0'''
# The outputs' weights in the loss, distinct: a gradient stored into the wrong output shows.
OUTPUT_WEIGHTS = {"a": 1.0, "b": -2.0, "c": 0.5}


def _three_outputs_named(engine, data, shape) -> tuple[Script, list[str]]:
    """A script with a, b, c = ThreeMultiples.apply(x) run, and two or three of the outputs'
    names in a drawn order: what backward(inputs=[...]) names."""
    x = data.draw(values(shape, "float32"), label="x")
    named = data.draw(st.permutations(list(OUTPUT_WEIGHTS)), label="order")[
        :data.draw(st.integers(2, 3), label="outputs named")]
    script = Script(engine)
    script.run(THREE_MULTIPLES, f"x = {tensor_literal(x, 'float32', requires_grad=True)}",
               "a, b, c = ThreeMultiples.apply(x)")
    return script, named


@behaviour("LEAF-12")
@needs("backward_inputs", "custom_function")
@given(data=st.data(), shape=shapes())
def test_backward_inputs_gives_each_output_of_one_node_its_gradient(engine, data, shape):
    """backward(inputs=[...]) naming two or three outputs of one node (a custom Function's a, b,
    c = 2x, 3x, 4x, weighted 1, -2 and 0.5 in the loss), in a drawn order: each named output gets
    its own weight as .grad, and x, not named, keeps None."""
    script, named = _three_outputs_named(engine, data, shape)
    script.run(f"loss = ({' + '.join(f'{o} * {w}' for o, w in OUTPUT_WEIGHTS.items())}).sum()",
               f"loss.backward(inputs=[{', '.join(named)}])")
    for name in named:
        script.check_close(f"{name}.grad", np.full(shape, OUTPUT_WEIGHTS[name]), dtype="float32",
                           oracle=f"{name}'s weight in the loss")
    script.check_equal("x.grad", None, why="x is not in inputs")


@behaviour("LEAF-12", "HOOK-13")
@needs("backward_inputs", "custom_function", "backward_create_graph", "hooks", "autograd_grad")
@given(data=st.data(), shape=shapes())
def test_backward_inputs_stores_outputs_of_one_node_latest_named_first(engine, data, shape):
    """backward(inputs=[...], create_graph=True) naming two or three outputs of one node (a
    custom Function's a, b, c), in a drawn order, with a loss whose gradients depend on them:
    their .grad tensors are recorded from the last named to the first, so a later pass through
    all of them, which runs the newest node first, reaches them in the named order, as the hooks
    on them show."""
    script, named = _three_outputs_named(engine, data, shape)
    script.run(f"loss = ({' + '.join(f'{o} * {o} * {w}' for o, w in OUTPUT_WEIGHTS.items())}).sum()",
               f"loss.backward(inputs=[{', '.join(named)}], create_graph=True)",
               "reached = []",
               *(f"{name}.grad.register_hook(lambda g: reached.append({name!r}))" for name in named),
               f"torch.autograd.grad(({' + '.join(f'{name}.grad.sum()' for name in named)}), x)")
    script.check_equal("reached", named,
                       why="the outputs' .grad tensors were recorded from the last named to the "
                       "first, and the newest node runs first")


@behaviour("LEAF-16")
@needs("backward_inputs")
@given(data=st.data())
def test_backward_inputs_makes_a_named_non_leaf_retain_its_gradient(engine, data):
    """After backward(inputs=[h]) with h a non-leaf, h.retains_grad is True and a later pass adds
    into h.grad if it runs h.grad_fn: a plain backward(), or backward(inputs=[x]) for a leaf x
    below h; with x a leaf not below h (z, which the loss adds beside the program, or one of the
    program's), h.grad keeps the first pass's value."""
    program, name = _program_and_recorded_node(engine, data, "non-leaf input")
    below = program.ancestors(name)
    later = data.draw(st.sampled_from([None, "z"] + [leaf.name for leaf in program.grad_leaves()]),
                      label="leaf named in the later pass")
    reached = later is None or later in below
    event(f"the later pass runs the non-leaf's grad_fn: {reached}")
    ones = np.ones(program.evaluate()[program.output].shape)
    expected = analytic_grads(program, ones, wrt=[name])
    script = Script(engine)
    script.build(program)
    script.run("z = torch.ones(2, requires_grad=True)", "loss = out.sum() + (z * z).sum()",
               f"loss.backward(inputs=[{name}], retain_graph=True)")
    script.check(f"{name}.retains_grad", f"backward(inputs=[{name}]) left {name}.retains_grad False")
    script.run("loss.backward()" if later is None else f"loss.backward(inputs=[{later}])")
    passes = 2 if reached else 1
    script.check_close(f"{name}.grad", passes * expected[name], dtype=program.dtype,
                       oracle=f"analytic, times {passes} passes: the later pass "
                       + ("runs" if reached else "does not run") + f" {name}.grad_fn",
                       magnitude=passes * expected.magnitude)


@behaviour("REQ-9")
@given(data=st.data())
def test_leaves_not_requiring_grad_keep_none(engine, data):
    program = data.draw(programs(engine, requires_grad="mixed"), label="program")
    script = Script(engine)
    script.build(program)
    script.run("out.backward()")
    for leaf in program.leaves:
        if not leaf.requires_grad:
            script.check_equal(f"{leaf.name}.grad", None,
                               why=f"{leaf.name} does not require grad")


@behaviour("MISC-3")
@given(data=st.data())
def test_leaves_not_taking_part_keep_none(engine, data):
    program = data.draw(programs(engine, requires_grad="all"), label="program")
    script = Script(engine)
    script.build(program)
    script.run("bystander = torch.ones(2, requires_grad=True)", "out.backward()")
    unused = [leaf.name for leaf in program.leaves if leaf.name not in program.ancestors()]
    for name in ["bystander"] + unused:
        script.check_equal(f"{name}.grad", None, why=f"{name} takes no part in the output")


@behaviour("LEAF-8")
def test_seed_retain_grad_on_intermediate(engine):
    """Seed 002: with a.retain_grad(), y = (w + x) * (w + 1) keeps a.grad == 2 (= w + 1), while
    b = w + 1 keeps none."""
    script = Script(engine)
    script.run("w = torch.tensor([1.0], requires_grad=True)",
               "x = torch.tensor([2.0], requires_grad=True)",
               "a = w + x", "a.retain_grad()", "b = w + 1", "y = a * b", "y.backward()")
    script.check("[t.is_leaf for t in (w, x, a, b, y)] == [True, True, False, False, False]",
                 "is_leaf of w, x, a, b, y is {[t.is_leaf for t in (w, x, a, b, y)]}")
    script.check("a.grad is not None", "a.grad is None")
    script.check("a.grad.item() == 2.0", "a.grad is {a.grad}, expected 2")
    script.check("b.grad is None and y.grad is None",
                 "b.grad is {b.grad} and y.grad is {y.grad}; neither retains its gradient")
    script.check("w.grad is not None", "w.grad is None")
    script.check("x.grad is not None", "x.grad is None")
    script.check("w.grad.item() == 5.0 and x.grad.item() == 2.0",
                 "w.grad is {w.grad} and x.grad is {x.grad}, expected 5 and 2")


@behaviour("LEAF-4")
@needs("float64", "dtype_conversion")
@given(data=st.data())
def test_conversion_to_the_own_dtype_returns_the_tensor_itself(engine, data):
    """t.to(t.dtype) returns t itself, so a leaf stays that leaf (no copy, no node in between);
    to the other float dtype it is a copy, which for a leaf that requires grad is a non-leaf."""
    program = data.draw(programs(engine, output="any", requires_grad="mixed"), label="program")
    dtype = program.dtype
    other = "float32" if dtype == "float64" else "float64"
    script = Script(engine)
    script.build(program)
    for name in program.variables():
        script.check(f"{name}.to(torch.{dtype}) is {name}",
                     f"{name}.to(torch.{dtype}), its own dtype, returned a new tensor")
    for leaf in program.leaves:
        name, copy = leaf.name, f"{leaf.name}.to(torch.{other})"
        script.check(f"{name}.is_leaf and {name}.grad_fn is None",
                     f"{name} is no longer a leaf after {name}.to(torch.{dtype})")
        if leaf.requires_grad:
            script.check(f"not {copy}.is_leaf and {copy}.grad_fn is not None",
                         f"{copy} of a leaf that requires grad is a leaf",
                         show=(f"{copy}.is_leaf", f"{copy}.grad_fn"))
        else:
            script.check(f"{copy}.is_leaf and not {copy}.requires_grad",
                         f"{copy} of a leaf that does not require grad requires grad")


NON_LEAF_WARNING = "is not a leaf Tensor"


def _reads_grad_silently(script, name, why):
    """Read `name`.grad recording warnings: none may be raised (`why` says why)."""
    script.run("import warnings",
               "with warnings.catch_warnings(record=True) as caught:\n"
               "    warnings.simplefilter('always')\n"
               f"    {name}.grad")
    script.check("not caught", f"{why}, but reading {name}.grad warned: "
                               "{[str(w.message) for w in caught]}")


@behaviour("LEAF-7")
@given(data=st.data())
def test_reading_a_non_leaf_grad_warns(engine, data):
    """Reading .grad of a non-leaf that does not retain its gradient warns (UserWarning), before
    and after backward; reading it on a leaf (requiring grad or not) or on a non-leaf after
    retain_grad() does not."""
    program = data.draw(programs(engine, output="any", requires_grad="mixed",
                                 candidates=recorded_nodes), label="program")
    retained = data.draw(st.sampled_from(recorded_nodes(program)), label="retained")
    others = [name for name in recorded_nodes(program) if name != retained]
    plain = [leaf.name for leaf in program.leaves] + [  # op results that record nothing: leaves
        node.name for node in program.nodes if not program.requires_grad(node.name)]
    script = Script(engine)
    script.build(program)
    script.run(f"{retained}.retain_grad()")
    for when in ("before backward", "after backward"):
        if when == "after backward":
            script.run("out.sum().backward()")
        for name in others:
            script.warns(f"{name}.grad", NON_LEAF_WARNING)
        for name in plain:
            _reads_grad_silently(script, name, f"{name} is a leaf ({when})")
        _reads_grad_silently(script, retained, f"{retained}.retain_grad() was called ({when})")


@behaviour("LEAF-7")
@needs("backward_inputs")
@given(data=st.data())
def test_a_non_leaf_grad_filled_by_backward_inputs_reads_silently(engine, data):
    """A non-leaf whose .grad backward(inputs=[y]) filled reads it without a warning."""
    program, name = _program_and_recorded_node(engine, data, "input")
    script = Script(engine)
    script.build(program)
    script.run(f"out.sum().backward(inputs=[{name}])")
    _reads_grad_silently(script, name, f"backward(inputs=[{name}]) filled {name}.grad")
    script.check(f"{name}.grad is not None", f"backward(inputs=[{name}]) left {name}.grad None")


@behaviour("LEAF-9")
@given(data=st.data(), passes=counts(BACKWARD_PASSES))
def test_retain_grad_on_a_leaf_is_a_no_op(engine, data, passes):
    """retain_grad() on leaves that require grad changes nothing: they stay leaves and after each
    of k backward passes hold that many times one pass's gradient, accumulated as usual."""
    program = data.draw(programs(engine), label="program")
    expected = analytic_grads(program)
    script = Script(engine)
    script.build(program)
    for leaf in program.grad_leaves():
        script.run(f"{leaf.name}.retain_grad()", f"{leaf.name}.retain_grad()")
    for done in range(1, passes + 1):
        script.run("out.backward(retain_graph=True)")
        assert_leaf_grads(script, program, expected, scale=done, oracle=f"analytic x {done} passes")
    for leaf in program.grad_leaves():
        script.check(f"{leaf.name}.is_leaf", f"{leaf.name}.retain_grad() made it a non-leaf")


@behaviour("LEAF-9")
@control("test_leaves.py::test_retain_grad_keeps_a_non_leaf_gradient")
@given(data=st.data())
def test_retain_grad_without_requires_grad_raises(engine, data):
    """retain_grad() on a tensor that does not require grad, a leaf or an op's result, raises
    RuntimeError."""
    program = data.draw(programs(engine, output="any", requires_grad="none"), label="program")
    name = data.draw(st.sampled_from(program.variables()), label="tensor")
    script = Script(engine)
    script.build(program)
    script.raises(f"{name}.retain_grad()")


@behaviour("LEAF-10")
@given(data=st.data(), passes=counts(BACKWARD_PASSES, low=2))
def test_retained_non_leaf_grads_accumulate(engine, data, passes):
    """A retained non-leaf's .grad is summed over backward passes, like a leaf's: each of k
    passes leaves that many times one pass's gradient (checked after every pass)."""
    program, retained = _program_and_recorded_node(engine, data, "retained")
    ones = np.ones(program.output_shape())
    expected = analytic_grads(program, ones, wrt=[retained])
    script = Script(engine)
    script.build(program)
    script.run(f"{retained}.retain_grad()", "total = out.sum()")
    for done in range(1, passes + 1):
        script.run("total.backward(retain_graph=True)")
        script.check_close(f"{retained}.grad", done * expected[retained], dtype=program.dtype,
                           oracle=f"analytic x {done} passes", magnitude=done * expected.magnitude)


@behaviour("LEAF-11")
@given(data=st.data())
def test_grads_are_plain_leaves(engine, data):
    """Without create_graph the tensors backward stores in .grad, a leaf's or a retained
    non-leaf's, are leaves that do not require grad and have no grad_fn."""
    program, retained = _program_and_recorded_node(engine, data, "retained")
    script = Script(engine)
    script.build(program)
    script.run(f"{retained}.retain_grad()", "out.sum().backward()")
    for name in [leaf.name for leaf in program.grad_leaves()] + [retained]:
        grad = f"{name}.grad"
        script.check(f"{grad} is not None", f"{grad} is None after backward")
        script.check(f"{grad}.is_leaf and not {grad}.requires_grad and {grad}.grad_fn is None",
                     f"{grad} is not a plain leaf",
                     show=(f"{grad}.is_leaf", f"{grad}.requires_grad", f"{grad}.grad_fn"))
