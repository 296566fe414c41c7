"""Gradients accumulate into .grad until they are zeroed, by any of the documented ways (ACC-*)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads
from autograd_conformance.harness.counts import BACKWARD_PASSES, counts
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script
from autograd_conformance.harness.strategies import computed_output, programs

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs


@behaviour("ACC-1")
@given(data=st.data(), passes=counts(BACKWARD_PASSES, low=2))
def test_k_backward_passes_accumulate_k_times(engine, data, passes):
    """Each of two to four passes over the retained graph adds one pass's gradient: after the
    k-th, every leaf holds k times it (checked after every pass, so a pass that overwrites,
    skips or adds twice shows where it happens)."""
    program = data.draw(programs(engine), label="program")
    expected = analytic_grads(program)
    script = Script(engine)
    script.build(program)
    for done in range(1, passes + 1):
        script.run("out.backward(retain_graph=True)")
        assert_leaf_grads(script, program, expected, scale=done, oracle=f"analytic x {done} passes")


@behaviour("ACC-4")
@needs("backward_create_graph")
@pytest.mark.filterwarnings("ignore:Using backward.. with create_graph=True:UserWarning")
@given(data=st.data())
def test_create_graph_passes_accumulate_out_of_place(engine, data):
    """Under create_graph=True a second pass does not add into .grad in place: each leaf's .grad
    (and a retained non-leaf's) becomes a new tensor holding the sum of both passes, and the
    tensor of the first pass keeps one pass's gradient, since a graph built from it may still
    need it."""
    program = data.draw(programs(engine, candidates=computed_output), label="program")
    leaves = [leaf.name for leaf in program.grad_leaves()]
    script = Script(engine)
    script.build(program)
    script.run("out.retain_grad()", "out.backward(create_graph=True)",
               f"first = {{name: t.grad for name, t in zip({leaves!r}, [{', '.join(leaves)}])}}",
               "first['out'] = out.grad", "out.backward(create_graph=True)")
    one_pass = analytic_grads(program)
    assert_leaf_grads(script, program, one_pass, scale=2, oracle="analytic x 2 passes")
    ones = np.ones(program.output_shape())
    script.check_close("out.grad", 2 * ones, dtype=program.dtype, oracle="2 passes of d out/d out")
    for name, expected in [*((leaf, one_pass[leaf]) for leaf in leaves), ("out", ones)]:
        script.check(f"{name}.grad is not first[{name!r}]",
                     f"the second create_graph pass added into {name}.grad in place")
        script.check_close(f"first[{name!r}]", expected, dtype=program.dtype,
                           oracle=f"one pass (the first pass's {name}.grad, kept)",
                           magnitude=one_pass.magnitude)


def _check_one_pass_after_reset(engine, program, reset, check_reset):
    """backward, reset every leaf's .grad (the line `reset`), backward again: the grads must be
    one pass's, as if the first pass had never happened. `check_reset` is the condition and the
    message of the check after the reset, and the expressions its failure shows, with {0} for
    the leaf's name."""
    script = Script(engine)
    script.build(program)
    script.run("out.backward(retain_graph=True)")
    for leaf in program.grad_leaves():
        condition, message, show = check_reset
        script.run(reset.format(leaf.name))
        script.check(condition.format(leaf.name), message.format(leaf.name),
                     show=tuple(expression.format(leaf.name) for expression in show))
    script.run("out.backward()")
    assert_leaf_grads(script, program, analytic_grads(program),
                 oracle=f"analytic (one pass after {reset.format('x')})")


@behaviour("ACC-6")
@given(data=st.data())
def test_grad_zero_restarts_accumulation(engine, data):
    _check_one_pass_after_reset(
        engine, data.draw(programs(engine), label="program"), "{}.grad.zero_()",
        ("{0}.grad is not None and not to_numpy({0}.grad).any()",
         "{0}.grad is not zeros after grad.zero_()", ("{0}.grad",)))


@behaviour("ACC-7")
@needs("tensor_data")
@given(data=st.data())
def test_grad_data_zero_restarts_accumulation(engine, data):
    """The seeds zero with x.grad.data.zero_(): .data shares the gradient's storage, so zeroing
    it zeros .grad itself."""
    _check_one_pass_after_reset(
        engine, data.draw(programs(engine), label="program"), "{}.grad.data.zero_()",
        ("{0}.grad is not None and not to_numpy({0}.grad).any()",
         "{0}.grad is not zeros after grad.data.zero_()", ("{0}.grad",)))


@behaviour("ACC-7")
@needs("tensor_data")
def test_seed_jacobian_rows_zeroed_through_data(engine):
    """Seed 000: loss = x @ y with x = [[1, 2]], y = [[3, 4], [5, 6]]; backward([[1, 0]]) gives
    row [[3, 5]], x.grad.data.zero_(), then backward([[0, 1]]) gives row [[4, 6]] alone."""
    script = Script(engine)
    script.run("x = torch.tensor([[1.0, 2.0]], requires_grad=True)",
               "y = torch.tensor([[3.0, 4.0], [5.0, 6.0]])", "loss = x @ y",
               "loss.backward(torch.tensor([[1.0, 0.0]]), retain_graph=True)",
               "x.grad.data.zero_()",
               "loss.backward(torch.tensor([[0.0, 1.0]]))")
    script.check("x.grad is not None and [x.grad[0, 0].item(), x.grad[0, 1].item()] == [4.0, 6.0]",
                 "x.grad after x.grad.data.zero_() and the second row is {x.grad}, "
                 "expected [[4.0, 6.0]]")


@behaviour("ACC-11")
@given(data=st.data())
def test_grads_are_none_until_the_first_backward(engine, data):
    """Building a graph stores no gradient: every leaf's .grad is None (not zeros) until a
    backward reaches it, so there is nothing to zero before the first pass."""
    program = data.draw(programs(engine), label="program")
    script = Script(engine)
    script.build(program)
    for leaf in program.grad_leaves():
        script.check_equal(f"{leaf.name}.grad", None, why="no backward has run yet")
    script.run("out.backward()")
    assert_leaf_grads(script, program, analytic_grads(program), oracle="analytic (first pass)")


@behaviour("ACC-8")
@given(data=st.data())
def test_grad_set_to_none_restarts_accumulation(engine, data):
    _check_one_pass_after_reset(engine, data.draw(programs(engine), label="program"),
                                "{}.grad = None",
                                ("{0}.grad is None", "{0}.grad = None did not stick", ()))


def _trained_net(script, sizes, batch):
    """A small MLP `net` after one backward pass of a sum over a random batch."""
    layers = ", ".join(f"torch.nn.Linear({fan_in}, {fan_out}), torch.nn.Tanh()"
                       for fan_in, fan_out in zip(sizes, sizes[1:]))
    script.run(f"net = torch.nn.Sequential({layers})",
               f"x = torch.tensor(np.linspace(-1, 1, {batch * sizes[0]})"
               f".reshape({batch}, {sizes[0]}).tolist())",
               "net(x).sum().backward()")
    script.check("all(p.grad is not None for p in net.parameters())",
                 "backward left a parameter without .grad")


mlp_sizes = st.lists(st.integers(1, 4), min_size=2, max_size=4)


@behaviour("ACC-9")
@needs("nn", "optim")
@given(sizes=mlp_sizes, batch=st.integers(1, 3), use_adam=st.booleans())
def test_optimizer_zero_grad_sets_grads_to_none(engine, sizes, batch, use_adam):
    script = Script(engine)
    _trained_net(script, sizes, batch)
    script.run(f"optimizer = torch.optim.{'Adam' if use_adam else 'SGD'}(net.parameters(), lr=0.1)",
               "optimizer.zero_grad()")
    script.check("all(p.grad is None for p in net.parameters())",
                 "optimizer.zero_grad() left .grad set on parameters of shapes "
                 "{[tuple(p.shape) for p in net.parameters() if p.grad is not None]}")


@behaviour("ACC-10")
@needs("nn")
@given(sizes=mlp_sizes, batch=st.integers(1, 3))
def test_module_zero_grad_sets_grads_to_none(engine, sizes, batch):
    script = Script(engine)
    _trained_net(script, sizes, batch)
    script.run("net.zero_grad()")
    script.check("all(p.grad is None for p in net.parameters())",
                 "module.zero_grad() left .grad set on "
                 "{[name for name, p in net.named_parameters() if p.grad is not None]}")


@behaviour("ACC-1")
def test_seed_two_passes_double_the_gradient(engine):
    """Seed 001/003: out = ((a + 3) ** 2 * 3).mean() at a = [2, 3] has grad [15, 18] per pass;
    a second pass over the retained graph accumulates to [30, 36]."""
    script = Script(engine)
    script.run("a = torch.tensor([2.0, 3.0], requires_grad=True)",
               "out = ((a + 3) * (a + 3) * 3).mean()",
               "out.backward(retain_graph=True)")
    script.check("a.grad is not None and to_numpy(a.grad).tolist() == [15.0, 18.0]",
                 "a.grad after one pass is {a.grad}, expected [15.0, 18.0]")
    script.run("out.backward()")
    script.check("a.grad is not None and to_numpy(a.grad).tolist() == [30.0, 36.0]",
                 "a.grad after two passes is {a.grad}, expected [30.0, 36.0]")
