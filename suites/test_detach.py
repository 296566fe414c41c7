"""detach() makes a leaf that shares data but stops gradients; detach_() does it in place
(DET-*)."""

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_grads_with_nodes_held_constant, assert_leaf_grads
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script, tensor_literal
from autograd_conformance.harness.strategies import SHAPING, programs, recorded_intermediates, values

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control

SAVE_RESULT = {"exp", "tanh", "sigmoid", "relu", "sqrt"}  # torch's nodes for these save their output
KEEP_NO_INPUT = ({"add", "sub", "neg", "sum", "mean", "reshape", "transpose", "index", "clone",
                  "index_list"} | SAVE_RESULT)
CHANGES = ("add_(1.0)", "mul_(2.0)", "zero_()")   # in-place changes made through a detach() alias


def _recorded_nodes(program, views=True):
    """Nodes that require grad and feed the output (views too, unless `views` is False)."""
    return [node for node in program.nodes if program.requires_grad(node.name)
            and node.name in program.ancestors() and (views or node.op not in SHAPING)]


def _recorded_non_views(program):
    """Recorded nodes that feed the output and are no views: detach_() applies (DET-5)."""
    return _recorded_nodes(program, views=False)


def _unsaved(program):
    """Names of recorded non-view nodes, not the output, that no node saves for backward: neither
    their own node (SAVE_RESULT) nor a consumer (one outside KEEP_NO_INPUT) (DET-7)."""
    consumers = {}
    for node in program.nodes:
        for arg in node.args:
            consumers.setdefault(arg, set()).add(node.op)
    return [node.name for node in _recorded_nodes(program, views=False)
            if node.name != program.output and node.op not in SAVE_RESULT
            and consumers.get(node.name, set()) <= KEEP_NO_INPUT]


@behaviour("DET-1")
@given(data=st.data())
def test_detach_gives_a_leaf_without_grad_with_the_same_values(engine, data):
    """x.detach() has x's values and shape, does not require grad, is a leaf without grad_fn, and
    leaves x itself unchanged."""
    program = data.draw(programs(engine, output="any"), label="program")
    name = data.draw(st.sampled_from([leaf.name for leaf in program.leaves]
                                     + [node.name for node in program.nodes]), label="detached")
    script = Script(engine)
    script.build(program)
    script.run(f"flag = {name}.requires_grad", f"d = {name}.detach()")
    script.check("not d.requires_grad", f"{name}.detach() requires grad")
    script.check("d.is_leaf and d.grad_fn is None", f"{name}.detach() is not a plain leaf")
    script.check(f"np.array_equal(to_numpy(d), to_numpy({name}))",
                 f"{name}.detach() has other values than {name}")
    script.check(f"{name}.requires_grad == flag", f"{name}.detach() changed {name}.requires_grad")


@behaviour("DET-1")
@needs("inplace")
@given(data=st.data(), factor=st.sampled_from([0.0, 2.0, -3.0]))
def test_changes_through_detach_are_seen_by_the_original(engine, data, factor):
    """detach() shares storage: an in-place change of the detached tensor is visible in the
    original."""
    program = data.draw(programs(engine, output="any"), label="program")
    name = data.draw(st.sampled_from([node.name for node in program.nodes]
                                     or [program.leaves[0].name]), label="detached")
    script = Script(engine)
    script.build(program)
    # A copy: to_numpy may share the tensor's memory, which the change below writes.
    script.run(f"before = to_numpy({name}).copy()", f"{name}.detach().mul_({factor})")
    script.check(f"np.allclose(to_numpy({name}), before * {factor})",
                 f"after {name}.detach().mul_({factor}), {name} does not hold its values "
                 f"times {factor}: the change did not reach it",
                 show=(f"to_numpy({name}).tolist()", f"(before * {factor}).tolist()"))


@behaviour("DET-2")
@given(data=st.data())
def test_gradients_do_not_flow_through_a_detached_branch(engine, data):
    """A detached node is a constant: gradients equal the analytic gradients of the program with
    that node held at its value; leaves reached only through it get no gradient."""
    program = data.draw(programs(engine, candidates=recorded_intermediates), label="program")
    detached = data.draw(st.sets(st.sampled_from(recorded_intermediates(program)), min_size=1),
                         label="detached")
    event(f"detached nodes: {len(detached)}")
    assert_grads_with_nodes_held_constant(
        Script(engine), program, detached,
        lambda name, line: [line, f"{name} = {name}.detach()"], how="replaced by their .detach()")


@behaviour("DET-2")
def test_seed_detached_square(engine):
    """z = x**2 (detached) * x + x**2 at x = 3 gives dz/dx = 9 + 6 = 15."""
    script = Script(engine)
    script.run("x = torch.tensor(3.0, requires_grad=True)",
               "y = x ** 2",
               "z = y.detach() * x + y",
               "z.backward()")
    script.check("x.grad is not None", "x.grad is None")
    script.check("x.grad.item() == 15.0", "x.grad is {x.grad.item()}, expected 9 + 6 = 15")


@behaviour("DET-3")
@control("test_inplace.py::test_modifying_a_saved_tensor_makes_backward_raise")
@needs("inplace")
@given(data=st.data(), change=st.sampled_from(CHANGES))
def test_detach_shares_the_version_counter(engine, data, change):
    """A tensor saved for backward and modified in place through a detach() alias makes backward
    raise: detach() shares the version counter."""
    program = data.draw(programs(engine, output="any", max_ops=3), label="program")
    script = Script(engine)
    script.build(program)
    script.run("y = torch.tanh(out)  # saves y for backward",
               "version = y._version",
               f"y.detach().{change}")
    script.check("y._version > version",
                 "an in-place change through detach() did not bump _version")
    script.raises("y.sum().backward()")


@behaviour("DET-5")
@needs("inplace")
@given(data=st.data())
def test_detach_in_place_turns_a_non_leaf_into_a_leaf(engine, data):
    """y.detach_() returns y itself, now a leaf that does not require grad, without grad_fn."""
    program = data.draw(programs(engine, output="any", candidates=_recorded_non_views),
                        label="program")
    name = data.draw(st.sampled_from(_recorded_non_views(program)), label="node").name
    event(f"detach_() of the output: {name == program.output}")
    script = Script(engine)
    script.build(program)
    script.run(f"before = to_numpy({name}).copy()", f"result = {name}.detach_()")
    script.check(f"result is {name}", f"{name}.detach_() returned another object")
    script.check(f"not {name}.requires_grad", f"{name} still requires grad after detach_()")
    script.check(f"{name}.is_leaf and {name}.grad_fn is None",
                 f"{name} is not a leaf after detach_()")
    script.check(f"np.array_equal(to_numpy({name}), before)",
                 f"{name}.detach_() changed its values")


@behaviour("DET-6")
@control("test_detach.py::test_detach_in_place_turns_a_non_leaf_into_a_leaf")
@needs("inplace")
@given(data=st.data())
def test_detach_in_place_of_a_view_raises(engine, data):
    """Views (slices of a result that requires grad) cannot be detached in place."""
    program = data.draw(programs(engine, output="vector", requires_grad="all", max_ops=3),
                        label="program")
    script = Script(engine)
    script.build(program)
    script.raises("out[0:1].detach_()")


@behaviour("DET-7")
@needs("inplace")
@given(data=st.data())
def test_detach_in_place_does_not_cut_graphs_already_built(engine, data):
    """detach_() after the forward pass leaves the recorded graph intact: the gradients are those
    of the unmodified program. (Torch raises instead when a node saved the detached tensor as an
    input, DET-10, so only tensors that no node saved are detached here.)"""
    program = data.draw(programs(engine, candidates=_unsaved), label="program")
    chosen = data.draw(st.sets(st.sampled_from(_unsaved(program)), min_size=1), label="detached")
    event(f"detached nodes: {len(chosen)}")
    script = Script(engine)
    script.build(program)
    script.run(*[f"{name}.detach_()" for name in sorted(chosen)], "out.backward()")
    assert_leaf_grads(script, program, analytic_grads(program),
                      oracle="analytic of the whole program")


@behaviour("DET-10")
@needs("inplace")
@given(data=st.data(), consumer=st.sampled_from(["y * w", "y * y", "y ** 2", "w / y"]))
def test_detach_in_place_of_a_saved_input_makes_backward_raise(engine, data, consumer):
    """y = out + 0.0, a non-leaf; z = a consumer that saves y as an input, s = y + w one that
    saves nothing of it. After y.detach_(), backward through z raises RuntimeError; backward
    through s still runs and gives w its gradient, ones."""
    program = data.draw(programs(engine, output="any"), label="program")
    w = data.draw(values(program.output_shape(), program.dtype), label="w")
    script = Script(engine)
    script.build(program)
    script.run("y = out + 0.0", f"w = {tensor_literal(w, program.dtype, requires_grad=True)}",
               f"z = {consumer}", "s = y + w", "y.detach_()")
    script.raises("z.sum().backward()")
    with script.control():
        script.run("s.sum().backward()")
        script.check_close("w.grad", np.ones(program.output_shape()), dtype=program.dtype,
                           oracle="ones, the gradient of sum(y + w)")


@behaviour("DET-8")
@needs("inplace")
@given(data=st.data())
def test_detach_in_place_on_a_leaf_clears_requires_grad(engine, data):
    """detach_() on a leaf that requires grad sets requires_grad=False; it stays a leaf."""
    program = data.draw(programs(engine, requires_grad="all", max_ops=1), label="program")
    leaf = data.draw(st.sampled_from(program.leaves), label="leaf").name
    script = Script(engine)
    script.build(program)
    script.run(f"result = {leaf}.detach_()")
    script.check(f"result is {leaf}", f"{leaf}.detach_() returned another object")
    script.check(f"not {leaf}.requires_grad and {leaf}.is_leaf",
                 f"{leaf} after detach_() requires grad or is no leaf",
                 show=(f"{leaf}.requires_grad", f"{leaf}.is_leaf"))
