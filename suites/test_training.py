"""The training loop: zero_grad(); loss.backward(); optimizer.step(). Least-squares problems
give an analytic gradient, (2/n) X^T (X w - y), so every step can be checked exactly (OPT-*,
MOD-13)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from autograd_conformance.harness.checks import grad_or_none, record_reproducer
from autograd_conformance.harness.oracles import assert_close
from autograd_conformance.harness.strategies import values

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs


@st.composite
def least_squares(draw):
    """X (n, d), y (n, 1) and a starting w (d, 1), float32-exact."""
    n = draw(st.integers(1, 4), label="n")
    d = draw(st.integers(1, 3), label="d")
    return (draw(values((n, d), "float32"), label="X"), draw(values((n, 1), "float32"), label="y"),
            draw(values((d, 1), "float32"), label="w"))


def _gradient(X, y, w):
    return 2.0 / len(X) * X.T @ (X @ w - y)


def _safe_lr(X):
    """1 / (an upper bound of the loss's curvature): a gradient step then cannot overshoot."""
    return 1.0 / (2.0 / len(X) * float(np.sum(X ** 2)) + 1e-3)


def _loss(ag, X, y, w):
    residual = ag.tensor(X.tolist()) @ w - ag.tensor(y.tolist())
    return (residual * residual).mean()


def _script(X, y, w, lr, *after):
    return "\n".join([f"X = torch.tensor({X.tolist()})", f"y = torch.tensor({y.tolist()})",
                      f"w = torch.nn.Parameter(torch.tensor({w.tolist()}))",
                      f"opt = torch.optim.SGD([w], lr={lr})",
                      "loss = lambda: ((X @ w - y) ** 2).mean()", *after])


@behaviour("OPT-1")
@needs("nn", "optim")
@given(problem=least_squares())
def test_sgd_step_follows_the_gradient_and_lowers_a_convex_loss(engine, ag, problem):
    """One SGD step sets w to w - lr * w.grad; with lr below 1/curvature the loss does not go
    up, and goes down by at least lr/2 |grad|^2."""
    X, y, w0 = problem
    lr = _safe_lr(X)
    record_reproducer(_script(X, y, w0, lr, "opt.zero_grad(); l0 = loss(); l0.backward()",
                              "opt.step(); loss() <= l0"))
    w = ag.nn.Parameter(ag.tensor(w0.tolist()))
    optimizer = ag.optim.SGD([w], lr=lr)
    optimizer.zero_grad()
    before = _loss(ag, X, y, w)
    before.backward()
    g = _gradient(X, y, w0)
    assert_close(grad_or_none(engine, w), g, dtype="float32", oracle="analytic 2/n X^T (Xw - y)",
                 what="w.grad")
    optimizer.step()
    assert_close(engine.to_numpy(w), w0 - lr * g, dtype="float32", oracle="w - lr * grad",
                 what="w after step()")
    after = _loss(ag, X, y, w).item()
    bound = before.item() - lr / 2 * float(np.sum(g ** 2))
    assert after <= bound + 1e-4 * max(1.0, abs(before.item())), (
        f"loss went from {before.item()} to {after}; a step of lr={lr} must reach {bound}")


@behaviour("OPT-2")
@needs("nn", "optim")
@given(problem=least_squares(), data=st.data())
def test_forgetting_zero_grad_steps_with_accumulated_gradients(engine, ag, problem, data):
    """Without zero_grad between two steps, the second backward adds to the first gradient, and
    the second update is lr times the sum of both steps' gradients."""
    X, y, w0 = problem
    y2 = data.draw(values(y.shape, "float32"), label="second targets")
    lr = _safe_lr(X) / 2
    record_reproducer(_script(X, y, w0, lr, "loss().backward(); opt.step()",
                              f"y = torch.tensor({y2.tolist()})",
                              "loss().backward(); opt.step()  # no zero_grad in between"))
    w = ag.nn.Parameter(ag.tensor(w0.tolist()))
    optimizer = ag.optim.SGD([w], lr=lr)
    _loss(ag, X, y, w).backward()
    optimizer.step()
    g1 = _gradient(X, y, w0)
    w1 = w0 - lr * g1
    _loss(ag, X, y2, w).backward()
    g2 = _gradient(X, y2, w1)
    assert_close(grad_or_none(engine, w), g1 + g2, dtype="float32",
                 oracle="sum of both steps' analytic gradients", what="w.grad")
    optimizer.step()
    assert_close(engine.to_numpy(w), w1 - lr * (g1 + g2), dtype="float32",
                 oracle="w1 - lr * (g1 + g2)", what="w after the second step()")


@behaviour("OPT-3")
@needs("nn", "optim")
@given(problem=least_squares(), on=st.sampled_from(["optimizer", "module"]))
def test_zero_grad_without_set_to_none_zeros_in_place(engine, ag, problem, on):
    """zero_grad(set_to_none=False), on an optimizer or a module, leaves zero tensors in the .grad
    that exist and None where .grad was None; the next backward stores exactly the new gradient."""
    X, y, w0 = problem
    record_reproducer(_script(X, y, w0, 0.1, "unused = torch.nn.Parameter(torch.ones(2))",
                              "module = torch.nn.Module(); module.w, module.unused = w, unused",
                              "opt = torch.optim.SGD([w, unused], lr=0.1)", "loss().backward()",
                              f"{'opt' if on == 'optimizer' else 'module'}"
                              f".zero_grad(set_to_none=False)", "loss().backward()"))
    module = ag.nn.Module()
    module.w = ag.nn.Parameter(ag.tensor(w0.tolist()))
    module.unused = ag.nn.Parameter(ag.ones(2))
    w = module.w
    optimizer = ag.optim.SGD([w, module.unused], lr=0.1)
    _loss(ag, X, y, w).backward()
    (optimizer if on == "optimizer" else module).zero_grad(set_to_none=False)
    zeroed = grad_or_none(engine, w)
    assert zeroed is not None, f"{on}.zero_grad(set_to_none=False) set w.grad to None"
    assert not np.any(zeroed), f"{on}.zero_grad(set_to_none=False) left {zeroed.tolist()}"
    unused = grad_or_none(engine, module.unused)
    assert unused is None, (f"{on}.zero_grad(set_to_none=False) gave unused, whose .grad was "
                            f"None, .grad {unused.tolist()}")
    _loss(ag, X, y, w).backward()
    assert_close(grad_or_none(engine, w), _gradient(X, y, w0), dtype="float32",
                 oracle="analytic gradient (one pass)", what="w.grad")


@behaviour("MOD-13")
@needs("nn", "optim")
@given(problem=least_squares(), use_adam=st.booleans())
def test_optimizers_skip_parameters_without_grad(engine, ag, problem, use_adam):
    """A parameter whose .grad is None (it took no part in the loss) is left unchanged by
    step(), for SGD and Adam alike."""
    X, y, w0 = problem
    record_reproducer(_script(X, y, w0, 0.1, "unused = torch.nn.Parameter(torch.ones(2))",
                              f"opt = torch.optim.{'Adam' if use_adam else 'SGD'}([w, unused], "
                              f"lr=0.1)", "loss().backward(); opt.step()"))
    w = ag.nn.Parameter(ag.tensor(w0.tolist()))
    unused = ag.nn.Parameter(ag.ones(2))
    optimizer = (ag.optim.Adam if use_adam else ag.optim.SGD)([w, unused], lr=0.1)
    _loss(ag, X, y, w).backward()
    assert unused.grad is None
    optimizer.step()
    assert np.array_equal(engine.to_numpy(unused), np.ones(2)), (
        f"step() changed a parameter without grad to {engine.to_numpy(unused).tolist()}")
