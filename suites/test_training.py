"""The training loop: zero_grad(); loss.backward(); optimizer.step(). Least-squares problems
give an analytic gradient, (2/n) X^T (X w - y), so every step can be checked exactly (OPT-*,
MOD-13)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.counts import BACKWARD_PASSES, counts
from autograd_conformance.harness.script import Script, literal
from autograd_conformance.harness.strategies import values

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
pytestmark = needs("nn", "optim")


@st.composite
def least_squares(draw):
    """X (n, d), y (n, 1) and a starting w (d, 1), float32-exact."""
    n = draw(st.integers(1, 4), label="n")
    d = draw(st.integers(1, 3), label="d")
    return (draw(values((n, d), "float32"), label="X"), draw(values((n, 1), "float32"), label="y"),
            draw(values((d, 1), "float32"), label="w"))


def _gradient(X, y, w):
    return 2.0 / len(X) * X.T @ (X @ w - y)


def _magnitude(X, y, w) -> float:
    """The size of the terms _gradient adds up: the scale of its rounding errors in float32,
    large where the residual or X^T r cancels (autograd_conformance/harness/oracles.py)."""
    return float(np.max(2.0 / len(X) * np.abs(X).T @ (np.abs(X) @ np.abs(w) + np.abs(y))))


def _safe_lr(X):
    """1 / (an upper bound of the loss's curvature): a gradient step then cannot overshoot."""
    return 1.0 / (2.0 / len(X) * float(np.sum(X ** 2)) + 1e-3)


def _problem(script, X, y, w0):
    """The script's X, y, the parameter w (starting at w0) and loss(), the mean squared residual
    of the current X, w and y."""
    script.run(f"X = torch.tensor({literal(X)})", f"y = torch.tensor({literal(y)})",
               f"w = torch.nn.Parameter(torch.tensor({literal(w0)}))",
               "def loss():\n"
               "    residual = X @ w - y\n"
               "    return (residual * residual).mean()")


@behaviour("OPT-1")
@given(problem=least_squares())
def test_sgd_step_follows_the_gradient_and_lowers_a_convex_loss(engine, problem):
    """One SGD step sets w to w - lr * w.grad; with lr below 1/curvature the loss does not go
    up, and goes down by at least lr/2 |grad|^2."""
    X, y, w0 = problem
    lr = _safe_lr(X)
    g = _gradient(X, y, w0)
    decrease = lr / 2 * float(np.sum(g ** 2))     # the least a step of lr must take off
    script = Script(engine)
    _problem(script, X, y, w0)
    script.run(f"optimizer = torch.optim.SGD([w], lr={lr!r})", "optimizer.zero_grad()",
               "before = loss()", "before.backward()")
    magnitude = _magnitude(X, y, w0)
    script.check_close("w.grad", g, dtype="float32", oracle="analytic 2/n X^T (Xw - y)",
                       magnitude=magnitude)
    script.run("optimizer.step()")
    script.check_close("w", w0 - lr * g, dtype="float32", oracle="w - lr * grad",
                       magnitude=float(np.max(np.abs(w0))) + lr * magnitude)
    script.run("after = loss().item()")
    script.check(f"after <= before.item() - {decrease!r} + 1e-4 * max(1.0, abs(before.item()))",
                 f"a step of lr={lr} must lower the loss by {decrease!r}",
                 show=("before.item()", "after", f"before.item() - {decrease!r}"))


@behaviour("OPT-2")
@given(problem=least_squares(), passes=counts(BACKWARD_PASSES, low=2), data=st.data())
def test_forgetting_zero_grad_steps_with_accumulated_gradients(engine, problem, passes, data):
    """Without zero_grad between two to four steps, each backward adds to the gradients of all
    before it, and each update is lr times the sum of the gradients of every step so far: both
    are checked after every step."""
    X, y, w = problem
    lr = _safe_lr(X) / passes
    script = Script(engine)
    _problem(script, X, y, w)
    script.run(f"optimizer = torch.optim.SGD([w], lr={lr!r})")
    total, magnitude, w_magnitude = np.zeros_like(w), 0.0, float(np.max(np.abs(w)))
    for step in range(1, passes + 1):
        if step > 1:
            y = data.draw(values(y.shape, "float32"), label=f"targets {step}")
            script.run(f"y = torch.tensor({literal(y)})")
        total, magnitude = total + _gradient(X, y, w), magnitude + _magnitude(X, y, w)
        script.run("loss().backward()  # no zero_grad in between")
        script.check_close("w.grad", total, dtype="float32", magnitude=magnitude,
                           oracle=f"sum of the analytic gradients of steps 1 to {step}")
        script.run("optimizer.step()")
        w, w_magnitude = w - lr * total, w_magnitude + lr * magnitude
        script.check_close("w", w, dtype="float32", magnitude=w_magnitude,
                           oracle=f"w - lr * (the gradients of steps 1 to {step})")


@behaviour("OPT-3")
@given(problem=least_squares(), on=st.sampled_from(["optimizer", "module"]))
def test_zero_grad_without_set_to_none_zeros_in_place(engine, problem, on):
    """zero_grad(set_to_none=False), on an optimizer or a module, leaves zero tensors in the .grad
    that exist and None where .grad was None; the next backward stores exactly the new gradient."""
    X, y, w0 = problem
    script = Script(engine)
    _problem(script, X, y, w0)
    script.run("module = torch.nn.Module()", "module.w = w",
               "module.unused = torch.nn.Parameter(torch.ones(2))",
               "optimizer = torch.optim.SGD([w, module.unused], lr=0.1)",
               "loss().backward()", f"{on}.zero_grad(set_to_none=False)")
    script.check("w.grad is not None", f"{on}.zero_grad(set_to_none=False) set w.grad to None")
    script.check("not to_numpy(w.grad).any()",
                 f"{on}.zero_grad(set_to_none=False) left w.grad non-zero", show=("w.grad",))
    script.check_equal("module.unused.grad", None,
                       why=f"unused's .grad was None before {on}.zero_grad(set_to_none=False)")
    script.run("loss().backward()")
    script.check_close("w.grad", _gradient(X, y, w0), dtype="float32",
                       oracle="analytic gradient (one pass)", magnitude=_magnitude(X, y, w0))


@behaviour("MOD-13")
@given(problem=least_squares(), use_adam=st.booleans())
def test_optimizers_skip_parameters_without_grad(engine, problem, use_adam):
    """A parameter whose .grad is None (it took no part in the loss) is left unchanged by
    step(), for SGD and Adam alike."""
    X, y, w0 = problem
    script = Script(engine)
    _problem(script, X, y, w0)
    script.run("unused = torch.nn.Parameter(torch.ones(2))",
               f"optimizer = torch.optim.{'Adam' if use_adam else 'SGD'}([w, unused], lr=0.1)",
               "loss().backward()")
    script.check("unused.grad is None",
                 "unused took no part in the loss but has .grad {unused.grad}")
    script.run("optimizer.step()")
    script.check("np.array_equal(to_numpy(unused), np.ones(2))",
                 "step() changed a parameter without grad to {to_numpy(unused).tolist()}")


# ACC-13: optimizers that keep state for a parameter once it has had a gradient.
STATEFUL_OPTIMIZERS = ("SGD([w, aux], lr=0.1, momentum=0.9)",
                       "SGD([w, aux], lr=0.1, momentum=0.9, weight_decay=0.1)",
                       "Adam([w, aux], lr=0.1)", "Adam([w, aux], lr=0.1, weight_decay=0.1)")


@behaviour("ACC-13")
@given(problem=least_squares(), data=st.data(),
       optimizer=st.sampled_from(STATEFUL_OPTIMIZERS),
       zeroing=st.sampled_from(["zero_grad()", "zero_grad(set_to_none=True)"]))
def test_a_parameter_the_loss_skips_keeps_none_and_its_values(engine, problem, data, optimizer,
                                                               zeroing):
    """Step 1 uses aux (the optimizer keeps state for it); then zero_grad() and a backward of a
    loss without aux: aux.grad is None, and step 2 leaves aux as step 1 left it."""
    X, y, w0 = problem
    aux = data.draw(values((2,), "float32"), label="aux")
    script = Script(engine)
    _problem(script, X, y, w0)
    script.run(f"aux = torch.nn.Parameter(torch.tensor({literal(aux)}))",
               f"optimizer = torch.optim.{optimizer}",
               f"optimizer.{zeroing}", "(loss() + (aux * aux).sum()).backward()",
               "optimizer.step()",
               f"optimizer.{zeroing}", "loss().backward()  # aux takes no part",
               "after_first_step = to_numpy(aux.detach().clone())")
    script.check("aux.grad is None", f"after optimizer.{zeroing} and a backward without aux, "
                                     "aux.grad is {aux.grad}")
    script.run("optimizer.step()")
    script.check("np.array_equal(to_numpy(aux), after_first_step)",
                 "step() moved aux, whose .grad is None: {to_numpy(aux).tolist()} after "
                 "{after_first_step.tolist()}")


@behaviour("OPT-4")
@given(data=st.data(), way=st.sampled_from(["weight_decay", "momentum"]),
       lr=st.sampled_from([0.5, 0.25, 0.125]), factor=st.sampled_from([0.9, 0.5, 0.25]))
def test_a_zero_grad_still_steps_and_a_none_grad_does_not(engine, data, way, lr, factor):
    """p's .grad is a zero tensor ((p * 0).sum().backward()), q's is None. SGD with weight_decay
    sets p to p (1 - lr wd); SGD with momentum m, after a step with gradient g, moves p by
    lr m g once more. q stays as it was."""
    p0 = data.draw(values((3,), "float32"), label="p")
    q0 = data.draw(values((2,), "float32"), label="q")
    script = Script(engine)
    script.run(f"p = torch.nn.Parameter(torch.tensor({literal(p0)}))",
               f"q = torch.nn.Parameter(torch.tensor({literal(q0)}))")
    if way == "weight_decay":
        expected = p0 * (1 - lr * factor)
        script.run(f"optimizer = torch.optim.SGD([p, q], lr={lr!r}, weight_decay={factor!r})")
    else:
        g = data.draw(values((3,), "float32"), label="g")
        expected = p0 - lr * g - lr * factor * g
        script.run(f"optimizer = torch.optim.SGD([p, q], lr={lr!r}, momentum={factor!r})",
                   f"(p * torch.tensor({literal(g)})).sum().backward()", "optimizer.step()",
                   "optimizer.zero_grad()")
    script.run("(p * 0).sum().backward()")
    script.check("q.grad is None and p.grad is not None and not to_numpy(p.grad).any()",
                 "p.grad should be zeros and q.grad None", show=("p.grad", "q.grad"))
    script.run("optimizer.step()")
    script.check_close("p", expected, dtype="float32", oracle=f"SGD's {way} update of a zero grad")
    script.check(f"np.array_equal(to_numpy(q), {literal(q0)})",
                 "step() moved q, whose .grad is None: {to_numpy(q).tolist()}")
