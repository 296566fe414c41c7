"""The seeds use names that current torch removed: backward(retain_variables=...), volatile and
Variable. The catalog pins what torch 2.13 does with them, so that the seeds' question ("does
this still work?") has an answer an engine can be checked against (RETAIN-10, 12, 13)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import build, grad_or_none, record_reproducer
from autograd_conformance.harness.strategies import programs

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs


@behaviour("RETAIN-10")
@needs("legacy")
@given(data=st.data(), flag=st.booleans())
def test_retain_variables_is_a_type_error(engine, data, flag):
    """backward(retain_variables=...) (retain_graph's pre-0.4 name) raises TypeError and computes
    nothing; retain_graph is the name that works."""
    program = data.draw(programs(engine), label="program")
    tensors = build(program, engine, f"out.backward(retain_variables={flag})  # TypeError")
    with pytest.raises(TypeError):
        tensors[program.output].backward(retain_variables=flag)
    for leaf in program.grad_leaves():
        assert grad_or_none(engine, tensors[leaf.name]) is None, (
            f"backward(retain_variables=...) raised but filled {leaf.name}.grad")


@behaviour("RETAIN-12")
@needs("legacy")
@given(requires_grad=st.booleans())
def test_volatile_is_always_false_and_has_no_effect(ag, requires_grad):
    """Reading t.volatile gives False with a UserWarning; setting it warns and changes nothing:
    requires_grad is kept and ops are still recorded."""
    record_reproducer(f"x = torch.tensor([1.0, 2.0], requires_grad={requires_grad})\n"
                      "x.volatile = True\nx.volatile, x.requires_grad, (x * 2).requires_grad")
    x = ag.tensor([1.0, 2.0], requires_grad=requires_grad)
    with pytest.warns(UserWarning, match="volatile"):
        assert x.volatile is False
    with pytest.warns(UserWarning, match="volatile"):
        x.volatile = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert x.volatile is False, "volatile = True stuck"
    assert bool(x.requires_grad) == requires_grad, "setting volatile changed requires_grad"
    assert bool((x * 2).requires_grad) == requires_grad, "setting volatile changed recording"


@behaviour("RETAIN-13")
@needs("legacy")
@given(requires_grad=st.booleans())
def test_variable_returns_a_plain_tensor_leaf(engine, ag, requires_grad):
    """autograd.Variable(t, requires_grad=flag) returns an ordinary tensor leaf with that flag,
    which trains like any leaf."""
    record_reproducer(f"v = torch.autograd.Variable(torch.ones(2), requires_grad={requires_grad})")
    v = ag.autograd.Variable(ag.ones(2), requires_grad=requires_grad)
    assert type(v) is type(ag.ones(2)), f"Variable(...) is a {type(v).__name__}, not a tensor"
    assert v.is_leaf and v.grad_fn is None and bool(v.requires_grad) == requires_grad
    if requires_grad:
        (v * 3).sum().backward()
        grad = grad_or_none(engine, v)
        assert grad is not None and np.allclose(grad, 3.0), (
            f"v.grad is {None if grad is None else grad.tolist()}, expected [3.0, 3.0]")


@behaviour("RETAIN-13")
@needs("legacy")
def test_variable_volatile_only_warns_and_conflicts_with_requires_grad(ag):
    """Variable(t, volatile=True) warns and gives a tensor that does not require grad;
    volatile=True together with requires_grad=True is a ValueError."""
    record_reproducer("torch.autograd.Variable(torch.ones(2), volatile=True)\n"
                      "torch.autograd.Variable(torch.ones(2), requires_grad=True, volatile=True)")
    with pytest.warns(UserWarning, match="volatile"):
        w = ag.autograd.Variable(ag.ones(2), volatile=True)
    assert not w.requires_grad
    with pytest.raises(ValueError), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ag.autograd.Variable(ag.ones(2), requires_grad=True, volatile=True)
