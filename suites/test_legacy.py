"""The seeds use names that current torch removed: backward(retain_variables=...), volatile and
Variable. The catalog pins what torch 2.13 does with them, so that the seeds' question ("does
this still work?") has an answer an engine can be checked against (RETAIN-10, 12, 13)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_leaf_grads
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.script import Script
from autograd_conformance.harness.strategies import programs

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control
pytestmark = needs("legacy")


def _check_warns_about_volatile(script, line: str, what: str) -> None:
    """Run `line` recording warnings: one of them must be a UserWarning that mentions volatile
    (what pytest.warns(UserWarning, match="volatile") checked)."""
    script.run("with warnings.catch_warnings(record=True) as caught:",
               "    warnings.simplefilter('always')", f"    {line}")
    script.check("any(issubclass(w.category, UserWarning) and 'volatile' in str(w.message) "
                 "for w in caught)",
                 f"{what} gave no UserWarning about volatile (warnings: "
                 "{[str(w.message) for w in caught]})")


@behaviour("RETAIN-10")
@given(data=st.data(), flag=st.booleans())
def test_retain_variables_is_a_type_error(engine, data, flag):
    """backward(retain_variables=...) (retain_graph's pre-0.4 name) raises TypeError and computes
    nothing; retain_graph is the name that works."""
    program = data.draw(programs(engine), label="program")
    script = Script(engine)
    script.build(program)
    script.raises(f"out.backward(retain_variables={flag})", error="TypeError")
    for leaf in program.grad_leaves():
        script.check(f"{leaf.name}.grad is None",
                     f"backward(retain_variables=...) raised but filled {leaf.name}.grad")
    with script.control():
        script.run(f"out.backward(retain_graph={flag})")
        assert_leaf_grads(script, program, analytic_grads(program), oracle="analytic")


@behaviour("RETAIN-12")
@given(requires_grad=st.booleans())
def test_volatile_is_always_false_and_has_no_effect(engine, requires_grad):
    """Reading t.volatile gives False with a UserWarning; setting it warns and changes nothing:
    requires_grad is kept and ops are still recorded."""
    script = Script(engine)
    script.run("import warnings",
               f"x = torch.tensor([1.0, 2.0], requires_grad={requires_grad})")
    _check_warns_about_volatile(script, "volatile = x.volatile", "reading x.volatile")
    script.check("volatile is False", "x.volatile is {volatile!r}, expected False")
    _check_warns_about_volatile(script, "x.volatile = True", "setting x.volatile")
    script.run("with warnings.catch_warnings():",
               "    warnings.simplefilter('ignore', UserWarning)",
               "    volatile = x.volatile")
    script.check("volatile is False", "volatile = True stuck")
    script.check(f"bool(x.requires_grad) == {requires_grad}",
                 "setting volatile changed requires_grad")
    script.check(f"bool((x * 2).requires_grad) == {requires_grad}",
                 "setting volatile changed recording")


@behaviour("RETAIN-13")
@given(requires_grad=st.booleans())
def test_variable_returns_a_plain_tensor_leaf(engine, requires_grad):
    """autograd.Variable(t, requires_grad=flag) returns an ordinary tensor leaf with that flag,
    which trains like any leaf."""
    script = Script(engine)
    script.run(f"v = torch.autograd.Variable(torch.ones(2), requires_grad={requires_grad})")
    script.check("type(v) is type(torch.ones(2))",
                 "Variable(...) is a {type(v).__name__}, not a tensor")
    script.check(f"v.is_leaf and v.grad_fn is None and bool(v.requires_grad) == {requires_grad}",
                 f"v is not a leaf with requires_grad {requires_grad}",
                 show=("v.is_leaf", "v.grad_fn", "v.requires_grad"))
    if requires_grad:
        script.run("(v * 3).sum().backward()")
        script.check("v.grad is not None and np.allclose(to_numpy(v.grad), 3.0)",
                     "v.grad is {v.grad}, expected [3.0, 3.0]")


@behaviour("RETAIN-13")
@control("test_legacy.py::test_variable_returns_a_plain_tensor_leaf")
def test_variable_volatile_only_warns_and_conflicts_with_requires_grad(engine):
    """Variable(t, volatile=True) warns and gives a tensor that does not require grad;
    volatile=True together with requires_grad=True is a ValueError."""
    script = Script(engine)
    script.run("import warnings")
    _check_warns_about_volatile(
        script, "w = torch.autograd.Variable(torch.ones(2), volatile=True)",
        "Variable(..., volatile=True)")
    script.check("not w.requires_grad", "Variable(..., volatile=True) requires grad")
    script.raises("with warnings.catch_warnings():\n"
                  "    warnings.simplefilter('ignore', UserWarning)\n"
                  "    torch.autograd.Variable(torch.ones(2), requires_grad=True, volatile=True)",
                  error="ValueError")
