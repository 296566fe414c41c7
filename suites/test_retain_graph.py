"""backward() frees the graph's saved tensors; retain_graph=True keeps them (RETAIN-*)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads
from autograd_conformance.harness.counts import BACKWARD_PASSES, counts
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script, tensor_literal
from autograd_conformance.harness.strategies import NON_SAVING_OPS, cotangents, programs, recorded_nodes

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control


def _leaf_list(program) -> str:
    """The source of the list of the leaves that get gradients."""
    return "[" + ", ".join(leaf.name for leaf in program.grad_leaves()) + "]"


def _check_the_next_pass_raises(engine, data, first, second):
    """On a program whose graph saved tensors, the pass `first` frees them: `second` raises.
    `{leaves}` in either stands for the list of the leaves that get gradients."""
    program = data.draw(programs(engine, saves_tensors=True), label="program")
    leaves = _leaf_list(program)
    script = Script(engine)
    script.build(program)
    script.run(first.format(leaves=leaves))
    script.raises(second.format(leaves=leaves))


@behaviour("RETAIN-1")
@control("test_retain_graph.py::test_retain_graph_allows_another_backward")
@given(data=st.data())
def test_second_backward_without_retain_graph_raises(engine, data):
    _check_the_next_pass_raises(engine, data, "out.backward()", "out.backward()")


@behaviour("RETAIN-3")
@given(data=st.data())
def test_second_backward_through_nodes_without_saved_tensors_succeeds(engine, data):
    program = data.draw(programs(engine, ops=NON_SAVING_OPS), label="program")
    script = Script(engine)
    script.build(program)
    script.run("out.backward()",
               "out.backward()  # torch allows this: no node saved a tensor for backward")
    assert_leaf_grads(script, program, analytic_grads(program),
                      oracle="analytic x 2 passes", scale=2)


@behaviour("RETAIN-4")
@given(data=st.data())
def test_retain_graph_allows_another_backward(engine, data):
    program = data.draw(programs(engine, saves_tensors=True), label="program")
    leaves = [leaf.name for leaf in program.grad_leaves()]
    magnitude = analytic_grads(program).magnitude   # the scale of their rounding differences
    script = Script(engine)
    script.build(program)
    # Copies of the first pass's grads: the second pass may accumulate into .grad in place.
    script.run("out.backward(retain_graph=True)",
               *[f"first_{name} = to_numpy({name}.grad).copy()" for name in leaves],
               "out.backward()")
    for name in leaves:
        script.check_agrees(f"{name}.grad", f"2 * first_{name}", dtype=program.dtype,
                            oracle="twice the first pass", magnitude=2 * magnitude)


@behaviour("RETAIN-4")
def test_seed_retain_graph_twice(engine):
    """Seed 000: with retain_graph=True the same graph can be backpropagated again."""
    script = Script(engine)
    script.run("x = torch.tensor([1.0, 2.0], requires_grad=True)",
               "y = (x * x).sum()",
               "y.backward(retain_graph=True)",
               "y.backward()")
    script.check("[x.grad[0].item(), x.grad[1].item()] == [4.0, 8.0]",
                 "x.grad after two passes is {x.grad}, expected [4.0, 8.0]")


@behaviour("RETAIN-1")
@control("test_retain_graph.py::test_seed_retain_graph_twice")
def test_seed_second_backward_raises(engine):
    """Seed 000: after loss.backward(), a second loss.backward() on the same graph raises."""
    script = Script(engine)
    script.run("x = torch.tensor([[1.0, 2.0]], requires_grad=True)",
               "y = torch.tensor([[3.0, 4.0], [5.0, 6.0]])",
               "loss = (x @ y).sum()",
               "loss.backward()")
    script.check("[x.grad[0, 0].item(), x.grad[0, 1].item()] == [7.0, 11.0]",
                 "x.grad after one pass is {x.grad}, expected [[7.0, 11.0]]")
    script.raises("loss.backward()")


@behaviour("RETAIN-5")
@needs("autograd_grad", "higher_order")
@given(data=st.data())
def test_autograd_grad_with_create_graph_keeps_the_graph(engine, data):
    """retain_graph defaults to create_graph: after autograd.grad(..., create_graph=True) the
    graph is kept, so a plain autograd.grad through it again gives the same gradients."""
    program = data.draw(programs(engine, saves_tensors=True), label="program")
    expected = analytic_grads(program)
    script = Script(engine)
    script.build(program)
    script.run(f"first = torch.autograd.grad(out, {_leaf_list(program)}, create_graph=True)",
               f"second = torch.autograd.grad(out, {_leaf_list(program)})")
    for index, leaf in enumerate(program.grad_leaves()):
        script.check_close(f"second[{index}]", expected[leaf.name], dtype=program.dtype,
                           oracle="analytic", magnitude=expected.magnitude)


@behaviour("RETAIN-5")
@needs("backward_create_graph")
@pytest.mark.filterwarnings("ignore:Using backward.. with create_graph=True:UserWarning")
@given(data=st.data())
def test_backward_with_create_graph_keeps_the_graph(engine, data):
    """After backward(create_graph=True) the graph is kept: a plain backward through it succeeds
    and accumulates a second pass."""
    program = data.draw(programs(engine, saves_tensors=True), label="program")
    script = Script(engine)
    script.build(program)
    script.run("out.backward(create_graph=True)", "out.backward()")
    assert_leaf_grads(script, program, analytic_grads(program), scale=2,
                      oracle="analytic x 2 passes")


@behaviour("RETAIN-6")
@needs("autograd_grad", "higher_order")
@control("test_retain_graph.py::test_autograd_grad_with_create_graph_keeps_the_graph")
@given(data=st.data())
def test_autograd_grad_with_create_graph_and_retain_graph_false_frees(engine, data):
    """An explicit retain_graph=False overrides create_graph's default: the graph is freed, and
    the next autograd.grad through it raises."""
    _check_the_next_pass_raises(
        engine, data, "torch.autograd.grad(out, {leaves}, create_graph=True, retain_graph=False)",
        "torch.autograd.grad(out, {leaves})")


@behaviour("RETAIN-6")
@needs("backward_create_graph")
@pytest.mark.filterwarnings("ignore:Using backward.. with create_graph=True:UserWarning")
@control("test_retain_graph.py::test_backward_with_create_graph_keeps_the_graph")
@given(data=st.data())
def test_backward_with_create_graph_and_retain_graph_false_frees(engine, data):
    _check_the_next_pass_raises(engine, data, "out.backward(create_graph=True, retain_graph=False)",
                                "out.backward()")


@behaviour("RETAIN-7")
@needs("graph")
@given(data=st.data())
def test_freeing_keeps_the_nodes_and_their_edges(engine, data):
    """Backward frees what the nodes saved, not the graph's structure: every tensor keeps its
    grad_fn, and every node its next_functions."""
    program = data.draw(programs(engine, output="any", saves_tensors=True), label="program")
    recorded = recorded_nodes(program)
    script = Script(engine)
    script.build(program)
    script.run(f"nodes = {{name: t.grad_fn for name, t in zip({recorded!r}, "
               f"[{', '.join(recorded)}])}}",
               "edges = {name: tuple(node.next_functions) for name, node in nodes.items()}",
               "out.sum().backward()")
    for name in recorded:
        script.check(f"{name}.grad_fn is nodes[{name!r}] and not {name}.is_leaf",
                     f"after backward {name} is a leaf or its grad_fn another node",
                     show=(f"{name}.grad_fn", f"nodes[{name!r}]"))
        script.check(f"tuple({name}.grad_fn.next_functions) == edges[{name!r}]",
                     f"backward changed {name}.grad_fn.next_functions",
                     show=(f"edges[{name!r}]", f"{name}.grad_fn.next_functions"))


@behaviour("RETAIN-8")
@given(data=st.data())
def test_backward_frees_what_another_output_shares(engine, data):
    """Two outputs computed from one graph: backward from the first frees the saved tensors of
    the part they share, so backward from the second raises; with retain_graph=True on the first
    both work and the leaves get the sum."""
    program = data.draw(programs(engine, saves_tensors=True), label="program")
    script = Script(engine)
    for retain in (True, False):
        script.build(program)
        script.run("first = out + 1", "second = out - 1",
                   f"first.backward({'retain_graph=True' if retain else ''})")
        if retain:
            with script.control():
                script.run("second.backward()")
                assert_leaf_grads(script, program, analytic_grads(program), scale=2,
                                  oracle="analytic, summed over both outputs")
        else:
            script.raises("second.backward()")


@behaviour("RETAIN-8")
def test_seed_two_losses_from_one_forward(engine):
    """Seed 003: one forward, the backward of two losses into the same grads: the first needs
    retain_graph=True. h = x ** 2 at x = 2, a = 3 h, b = 4 h: x.grad is 12 + 16 = 28."""
    script = Script(engine)
    with script.control():
        script.run("x = torch.tensor(2.0, requires_grad=True)", "h = x ** 2",
                   "a = h * 3", "b = h * 4", "a.backward(retain_graph=True)", "b.backward()")
        script.check("x.grad is not None and x.grad.item() == 28.0",
                     "x.grad is {x.grad}, expected 12 + 16 = 28")
    script.run("h = x ** 2", "(h * 3).backward()")
    script.raises("(h * 4).backward()")


@behaviour("RETAIN-11")
@given(data=st.data())
def test_retain_graph_is_the_second_positional_argument(engine, data):
    """backward(gradient, True) is backward(gradient, retain_graph=True): the graph is kept for
    another pass, and the grads stay plain tensors (the flag is not create_graph)."""
    program = data.draw(programs(engine, output="any", saves_tensors=True), label="program")
    v = data.draw(cotangents(program.output_shape(), program.dtype), label="gradient")
    gradient = tensor_literal(v, program.dtype)
    script = Script(engine)
    script.build(program)
    script.run(f"out.backward({gradient}, True)", f"out.backward({gradient})")
    assert_leaf_grads(script, program, analytic_grads(program, v), scale=2,
                      oracle="analytic v^T J x 2 passes")
    for leaf in program.grad_leaves():
        script.check(f"not {leaf.name}.grad.requires_grad",
                     f"backward(gradient, True) made {leaf.name}.grad require grad: the second "
                     "positional argument is retain_graph, not create_graph")


@behaviour("RETAIN-9")
@given(data=st.data(), iterations=counts(BACKWARD_PASSES, low=2))
def test_a_new_forward_per_backward_needs_no_retain_graph(engine, data, iterations):
    """The training-loop shape: each iteration runs the forward pass again from the same leaves
    and calls backward() without retain_graph. Each backward frees only its own graph, so none
    raises, and the leaves accumulate one pass per iteration (checked after every one)."""
    program = data.draw(programs(engine, saves_tensors=True), label="program")
    leaves = [leaf.name for leaf in program.leaves]
    expected = analytic_grads(program)
    script = Script(engine)
    script.build(program)
    for done in range(1, iterations + 1):
        if done > 1:
            script.build(program, given=leaves)  # a new forward from the same leaves
        script.run("out.backward()")
        assert_leaf_grads(script, program, expected, scale=done,
                          oracle=f"analytic x {done} iterations")


@behaviour("RETAIN-9")
def test_seed_forward_and_backward_per_iteration(engine):
    """Seed 000's per-iteration graph: three iterations of y = x * x; y.backward() at x = 2
    leave x.grad = 3 * 4 = 12."""
    script = Script(engine)
    script.run("x = torch.tensor(2.0, requires_grad=True)",
               "for _ in range(3):\n    y = x * x\n    y.backward()")
    script.check("x.grad is not None and x.grad.item() == 12.0",
                 "x.grad after three iterations is {x.grad}, expected 12")
