"""Leaves keep their gradients, non-leaves do not, unless retain_grad() asks for it (LEAF-*)."""

import numpy as np
import pytest
from hypothesis import event, given, strategies as st

from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script
from autograd_conformance.harness.strategies import programs, recorded_nodes

behaviour = pytest.mark.behaviour


@behaviour("LEAF-1")
@given(data=st.data())
def test_created_tensors_are_leaves(engine, data):
    program = data.draw(programs(engine, max_ops=1), label="program")
    script = Script(engine)
    script.build(program)
    for leaf in program.leaves:
        name = leaf.name
        script.check(f"{name}.is_leaf", f"{name} was created by the user but is_leaf is False")
        script.check(f"{name}.grad_fn is None",
                     f"{name} is a leaf but has grad_fn {{{name}.grad_fn!r}}")


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
        script.check(f"{name}.grad is not None",
                     f"{name} requires grad and takes part, but .grad is None")
        script.check(f"tuple({name}.grad.shape) == {shape!r}",
                     f"{name}.grad has shape {{tuple({name}.grad.shape)}}, leaf has {shape}")
        script.check(f"{name}.grad.dtype == {name}.dtype",
                     f"{name}.grad has dtype {{{name}.grad.dtype}}, leaf has {{{name}.dtype}}")
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
        script.check(f"{node.name}.grad is None",
                     f"non-leaf {node.name} = {node.op}(...) kept .grad {{{node.name}.grad}}")


@behaviour("LEAF-8")
@given(data=st.data())
def test_retain_grad_keeps_a_non_leaf_gradient(engine, data):
    program = data.draw(programs(engine, output="any", candidates=recorded_nodes),
                        label="program")
    retained = data.draw(st.sampled_from(recorded_nodes(program)), label="retained")
    event(f"retained the output itself: {retained == program.output}")
    ones = np.ones(program.evaluate()[program.output].shape)
    expected = analytic_grads(program, ones, wrt=[retained])
    script = Script(engine)
    script.build(program)
    script.run(f"{retained}.retain_grad()", "out.sum().backward()")
    script.check(f"{retained}.grad is not None",
                 f"{retained}.retain_grad() was called but its .grad is None")
    script.check_close(f"{retained}.grad", expected[retained], dtype=program.dtype,
                       oracle="analytic", magnitude=expected.magnitude)


@behaviour("REQ-9")
@given(data=st.data())
def test_leaves_not_requiring_grad_keep_none(engine, data):
    program = data.draw(programs(engine, requires_grad="mixed"), label="program")
    script = Script(engine)
    script.build(program)
    script.run("out.backward()")
    for leaf in program.leaves:
        if not leaf.requires_grad:
            script.check(f"{leaf.name}.grad is None",
                         f"{leaf.name} does not require grad but got .grad {{{leaf.name}.grad}}")


@behaviour("MISC-3")
@given(data=st.data())
def test_leaves_not_taking_part_keep_none(engine, data):
    program = data.draw(programs(engine, requires_grad="all"), label="program")
    script = Script(engine)
    script.build(program)
    script.run("bystander = torch.ones(2, requires_grad=True)", "out.backward()")
    unused = [leaf.name for leaf in program.leaves if leaf.name not in program.ancestors()]
    for name in ["bystander"] + unused:
        script.check(f"{name}.grad is None",
                     f"{name} takes no part in the output but got .grad {{{name}.grad}}")


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
