"""Gradients accumulate into .grad until they are zeroed, by any of the documented ways (ACC-*)."""

import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script
from autograd_conformance.harness.strategies import programs

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs


@behaviour("ACC-1")
@given(data=st.data())
def test_k_backward_passes_accumulate_k_times(engine, data):
    program = data.draw(programs(engine), label="program")
    passes = data.draw(st.integers(2, 4), label="backward passes")
    script = Script(engine)
    script.build(program)
    for _ in range(passes):
        script.run("out.backward(retain_graph=True)")
    assert_leaf_grads(script, program, analytic_grads(program), scale=passes,
                 oracle=f"analytic x {passes} passes")


def _check_one_pass_after_reset(engine, program, reset, check_reset):
    """backward, reset every leaf's .grad (the line `reset`), backward again: the grads must be
    one pass's, as if the first pass had never happened."""
    script = Script(engine)
    script.build(program)
    script.run("out.backward(retain_graph=True)")
    for leaf in program.grad_leaves():
        script.run(reset.format(leaf.name))
        script.check(*(part.format(leaf.name) for part in check_reset))
    script.run("out.backward()")
    assert_leaf_grads(script, program, analytic_grads(program),
                 oracle=f"analytic (one pass after {reset.format('x')})")


@behaviour("ACC-6")
@given(data=st.data())
def test_grad_zero_restarts_accumulation(engine, data):
    _check_one_pass_after_reset(
        engine, data.draw(programs(engine), label="program"), "{}.grad.zero_()",
        ("{0}.grad is not None and not to_numpy({0}.grad).any()",
         "{0}.grad after grad.zero_() is {{{0}.grad}}"))  # {{...}}: shown by the script


@behaviour("ACC-8")
@given(data=st.data())
def test_grad_set_to_none_restarts_accumulation(engine, data):
    _check_one_pass_after_reset(engine, data.draw(programs(engine), label="program"),
                                "{}.grad = None",
                                ("{0}.grad is None", "{0}.grad = None did not stick"))


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
