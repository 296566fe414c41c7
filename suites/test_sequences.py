"""Sequences of autograd calls, as a hypothesis state machine: build forward graphs, call
backward (with and without retain_graph, with a gradient), zero grads in each of the ways, call
retain_grad, build from a detached tensor, mutate in place and toggle grad mode, in any order.
After every step the engine's whole state (every leaf's .grad, every retained .grad) is compared
with a model of what torch promises, and every backward must raise exactly when the model says
so. Accumulation and freeing bugs hide in orders of calls that single programs never try (SEQ-1).

The model knows each graph's gradient analytically. Its four formulas are chosen so that an error
at backward (freed graph, modified saved tensor) is raised by the first node after the root,
before anything is accumulated, as in torch."""

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from autograd_conformance.harness.script import Script, tensor_literal
from autograd_conformance.harness.strategies import full_precision_values, shapes, values, widest_float_dtype

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs

SIZE = 3
SCRIPTS = {
    "sum(a * b)": "{h} = a * b; {out} = {h}.sum()",
    "mean(a + b)": "{h} = a + b; {out} = {h}.mean()",
    "sum(tanh(a + b))": "{h} = torch.tanh(a + b); {out} = {h}.sum()",
    "sum((a - c) ** 2)": "{h} = a - c; {out} = ({h} * {h}).sum()",
}
FORMULAS = tuple(SCRIPTS)


@dataclass
class Root:
    """One forward graph: the script's variable `name` (a 0-dim tensor) from an intermediate
    h_<name>."""
    name: str
    h_values: np.ndarray           # h's values when the graph was built
    recorded: bool                 # built in grad mode: out requires grad
    saves: bool                    # some node on the path saved tensors (freed by backward)
    saves_h: bool                  # a node saved h itself (modifying h breaks backward)
    leaf_grads: dict               # d out / d leaf for each leaf on the path
    h_grad: np.ndarray             # d out / d h
    freed: bool = False
    h_modified: bool = False
    h_retained: bool = False
    h_model: np.ndarray | None = None
    h_size: float = 0.0            # the size of the contributions added up in h_model
    source: "Root | None" = None   # the root whose h (and version counter) this graph saved
                                   # through h.detach(), possibly repeated
    h_untracked: bool = False      # h.grad is not promised any more (after a failed backward)

    @property
    def h(self) -> str:
        return f"h_{self.name}"


def _formula(formula, a, b, c):
    """h, the gradients d out / d leaf, d out / d h, saves, saves_h, for values a, b, c."""
    if formula == "sum(a * b)":
        return a * b, {"a": b, "b": a}, np.ones(SIZE), True, False
    if formula == "mean(a + b)":
        return a + b, {"a": np.full(SIZE, 1 / SIZE), "b": np.full(SIZE, 1 / SIZE)}, \
            np.full(SIZE, 1 / SIZE), False, False
    if formula == "sum(tanh(a + b))":
        h = np.tanh(a + b)
        return h, {"a": 1 - h ** 2, "b": 1 - h ** 2}, np.ones(SIZE), True, True
    h = a - c
    return h, {"a": 2 * h}, 2 * h, True, True


class AutogradSequence(RuleBasedStateMachine):
    """Every step is a line of one Script on the engine; the invariant's checks are lines too, so
    a failing sequence prints as a torch script that fails at the check that found it."""

    def __init__(self, engine):
        super().__init__()
        self.engine = engine
        self.dtype = widest_float_dtype(engine)
        self.roots: list[Root] = []
        self.grad_enabled = True
        self.script = Script(engine)

    # -- steps ---------------------------------------------------------------------------------
    @initialize(data=st.data())
    def create_leaves(self, data):
        # moderate values: with tiny or zero leaves every gradient sits under the tolerance's
        # absolute floor, where accumulating and overwriting look the same
        self.values = {name: data.draw(full_precision_values((SIZE,), self.dtype), label=name)
                       for name in ("a", "b", "c")}
        self.model = {"a": None, "b": None}
        # The sizes of the contributions added up in each model gradient since it was last
        # reset: the scale of an accumulation's rounding errors (autograd_conformance/harness/oracles.py).
        self.sizes = {"a": 0.0, "b": 0.0}
        self.script.run(*(f"{name} = torch.tensor({self.values[name].tolist()!r}, "
                          f"dtype=torch.{self.dtype}{grad})"
                          for name, grad in (("a", ", requires_grad=True"),
                                             ("b", ", requires_grad=True"), ("c", ""))))

    @rule(formula=st.sampled_from(FORMULAS), under_no_grad=st.booleans())
    def build(self, formula, under_no_grad):
        """Build a new forward graph (under no_grad if asked, or if grad mode is off)."""
        name = f"r{len(self.roots)}"
        prefix = "with torch.no_grad(): " if under_no_grad else ""
        self.script.run(prefix + SCRIPTS[formula].format(h=f"h_{name}", out=name))
        h, grads, h_grad, saves, saves_h = _formula(formula, *(self.values[k] for k in "abc"))
        self.roots.append(Root(name, h, self.grad_enabled and not under_no_grad, saves,
                               saves_h, grads, h_grad))

    @precondition(lambda self: self.roots)
    @rule(data=st.data())
    def build_from_detached(self, data):
        """A new graph through a detached tensor: out = sum(h.detach() * a); only a gets
        gradient, the detached h's value."""
        root = data.draw(st.sampled_from(self.roots), label="detach whose h")
        # Every detach() of a detach() shares the version counter (and memory) of the first
        # tensor (DET-3): the root that owns it is the source of the new graph.
        source = root.source or root
        if source.h_modified:
            return  # the model does not track h's values after in-place changes
        name = f"r{len(self.roots)}"
        self.script.run(f"h_{name} = {root.h}.detach(); {name} = (h_{name} * a).sum()")
        self.roots.append(Root(name, root.h_values, self.grad_enabled, True, False,
                               {"a": root.h_values}, np.zeros(SIZE), source=source))

    @precondition(lambda self: self.roots)
    @rule(data=st.data(), retain=st.booleans(), scale=st.sampled_from([None, 1.0, -2.0, 0.5]))
    def backward(self, data, retain, scale):
        """backward on one graph; must raise when nothing requires grad, when the graph was freed,
        or when a saved tensor was modified; otherwise accumulates scale * d out / d leaf."""
        root = data.draw(st.sampled_from(self.roots), label="root")
        gradient = "" if scale is None else f"torch.tensor({scale}, dtype=torch.{self.dtype}), "
        call = f"{root.name}.backward({gradient}retain_graph={retain})"
        modified_saved = (root.h_modified and root.saves_h) or (
            root.source is not None and root.source.h_modified)  # detach() shares the version
        must_raise = (not root.recorded) or root.freed or modified_saved
        # Whether it raises is the check, so the error is caught and kept in `raised`.
        self.script.run("try:", f"    {call}", "    raised = None",
                        "except RuntimeError as error:", "    raised = error")
        if must_raise:
            reason = ("it was built without recording" if not root.recorded else
                      "its saved tensors were freed" if root.freed else
                      "a saved tensor was modified")
            self.script.check("raised is not None", f"{root.name}.backward() must raise: {reason}")
            # torch may already have run h's retain_grad hook when a node below h raises: the
            # docs promise nothing about a retained gradient after a failed backward
            root.h_retained, root.h_untracked = False, True
            return
        self.script.check_equal("raised", None, why=f"{root.name}.backward() must not raise")
        weight = 1.0 if scale is None else scale
        for name, grad in root.leaf_grads.items():
            current = self.model[name]
            self.model[name] = weight * grad if current is None else current + weight * grad
            self.sizes[name] += abs(weight) * float(np.abs(grad).max())
        if root.h_retained:
            contribution = weight * root.h_grad
            root.h_model = contribution if root.h_model is None else root.h_model + contribution
            root.h_size += float(np.abs(contribution).max())
        if not retain and root.saves:
            root.freed = True

    @precondition(lambda self: any(grad is not None for grad in self.model.values()))
    @rule(data=st.data(), way=st.sampled_from(["grad = None", "grad.zero_()"]))
    def zero_one_grad(self, data, way):
        name = data.draw(st.sampled_from([n for n, g in self.model.items() if g is not None]),
                         label="leaf")
        self.script.run(f"{name}.{way}")
        self.model[name] = None if way == "grad = None" else np.zeros(SIZE)
        self.sizes[name] = 0.0

    @precondition(lambda self: self.engine.has("optim"))
    @rule(set_to_none=st.booleans())
    def optimizer_zero_grad(self, set_to_none):
        self.script.run(f"torch.optim.SGD([a, b], lr=0.1).zero_grad(set_to_none={set_to_none})")
        for name, grad in self.model.items():
            if grad is not None:
                self.model[name] = None if set_to_none else np.zeros(SIZE)
                self.sizes[name] = 0.0

    @precondition(lambda self: self.roots)
    @rule(data=st.data())
    def retain_grad(self, data):
        candidates = [root for root in self.roots if root.recorded and not root.h_modified
                      and root.source is None and not root.h_untracked]
        if not candidates:
            return
        root = data.draw(st.sampled_from(candidates), label="retain whose h")
        self.script.run(f"{root.h}.retain_grad()")
        root.h_retained = True

    @precondition(lambda self: self.roots and self.engine.has("inplace"))
    @rule(data=st.data())
    def modify_h_in_place(self, data):
        """h.mul_(2): graphs already built keep their gradients, but one whose node saved h can
        no longer be backpropagated."""
        candidates = [root for root in self.roots if root.recorded and not root.h_retained
                      and root.source is None]
        if not candidates:
            return
        root = data.draw(st.sampled_from(candidates), label="modify whose h")
        self.script.run(f"{root.h}.mul_(2.0)")
        root.h_modified = True

    @precondition(lambda self: self.engine.has("inplace"))
    @rule()
    def modify_constant_in_place(self):
        """c (a plain leaf) += 1: later graphs see the new value; earlier ones never saved c."""
        self.script.run("c.add_(1.0)")
        self.values["c"] = self.values["c"] + 1.0

    @precondition(lambda self: self.engine.has("grad_mode"))
    @rule(enabled=st.booleans())
    def set_grad_enabled(self, enabled):
        self.script.run(f"torch.set_grad_enabled({enabled})")
        self.grad_enabled = enabled

    # -- the state -----------------------------------------------------------------------------
    @invariant()
    def grads_match_the_model(self):
        if not hasattr(self, "model"):
            return
        for name, expected in self.model.items():
            if expected is None:
                self.script.check_equal(f"{name}.grad", None,
                                        why="the sequence model holds no gradient for it")
            else:
                self.script.check_close(f"{name}.grad", expected, dtype=self.dtype,
                                        oracle="sequence model", magnitude=self.sizes[name])
        self.script.check("c.grad is None", "c does not require grad but has .grad {c.grad}")
        for root in self.roots:
            if root.h_retained:
                if root.h_model is None:
                    self.script.check_equal(f"{root.h}.grad", None,
                                            why="no backward has reached it yet")
                else:
                    self.script.check_close(f"{root.h}.grad", root.h_model, dtype=self.dtype,
                                            oracle="sequence model (retained)",
                                            magnitude=root.h_size)

    def teardown(self):
        # Not a step of the sequence: grad mode is global, and the next example (and test) must
        # start with it on, whatever this sequence left.
        if self.engine.has("grad_mode"):
            self.engine.ns.set_grad_enabled(True)


@behaviour("SEQ-1")
def test_sequences_of_autograd_calls(engine):
    """Random sequences of forward, backward, zeroing, retain_grad, detach, in-place and
    grad-mode steps keep every .grad equal to the model, and raise exactly where torch does."""
    # A sequence bug needs several particular steps in a row (e.g. two backward passes over one
    # retained graph), so the machine gets four times the profile's examples: still ~1 s on ci.
    run_state_machine_as_test(lambda: AutogradSequence(engine),
                              settings=settings(settings.default, stateful_step_count=20,
                                                max_examples=4 * settings.default.max_examples,
                                                deadline=None))


# ----- Python control flow (SEQ-2) -------------------------------------------------------------
@st.composite
def _branching_input(draw, dtype):
    """x, whose sum is at least 0.5 away from 0, and the sign c that makes (x * c).sum() positive
    exactly when the then-branch is drawn."""
    x = draw(values(draw(shapes(), label="shape"), dtype, bound=2.0), label="x")
    if abs(x.sum()) < 0.5:
        x.flat[0] += 1.0
    x = x.astype(dtype).astype(np.float64)
    then = draw(st.booleans(), label="then-branch")
    return x, 1.0 if (x.sum() > 0) == then else -1.0


@behaviour("SEQ-2")
@given(data=st.data())
def test_a_branch_on_a_value_gives_the_gradient_of_the_branch_taken(engine, data):
    """`if s.item() > 0` with h = x * c, c = +-1, and s = h.sum(): the then-branch takes
    s * h.sum() (x.grad = 2 s c, half of it through s), the else-branch sums exp(h) (x.grad =
    c exp(x c)). Drawing c's sign makes each branch happen; only the branch that ran is
    differentiated, through s, whose value item() read, too."""
    dtype = widest_float_dtype(engine)
    x, c = data.draw(_branching_input(dtype), label="x, c")
    s = float((x * c).sum())
    event(f"then-branch: {s > 0}")
    expected = 2 * s * c * np.ones_like(x) if s > 0 else c * np.exp(x * c)
    script = Script(engine)
    script.run(f"x = {tensor_literal(x, dtype, requires_grad=True)}",
               f"h = x * {c!r}", "s = h.sum()",
               "if s.item() > 0:", "    out = s * h.sum()", "else:", "    out = torch.exp(h).sum()",
               "out.backward()")
    script.check_close("x.grad", expected, dtype=dtype,
                       oracle="analytic gradient of the branch taken",
                       magnitude=float(np.abs(expected).max()))


@behaviour("SEQ-2")
@given(data=st.data(), doublings=st.integers(0, 4))
def test_a_loop_on_a_value_gives_the_gradient_of_the_iterations_run(engine, data, doublings):
    """`while abs(y).sum().item() < limit: y = y * 2`, the limit drawn so that the loop runs
    `doublings` times: y.sum().backward() gives x.grad = 2 ** doublings, one factor per
    iteration that ran."""
    dtype = widest_float_dtype(engine)
    x = data.draw(full_precision_values(data.draw(shapes(), label="shape"), dtype), label="x")
    limit = 0.75 * float(np.abs(x).sum()) * 2 ** doublings
    script = Script(engine)
    script.run(f"x = {tensor_literal(x, dtype, requires_grad=True)}", "y = x",
               f"while torch.abs(y).sum().item() < {limit!r}:", "    y = y * 2",
               "y.sum().backward()")
    script.check_close("x.grad", np.full_like(x, 2.0 ** doublings), dtype=dtype,
                       oracle=f"analytic: {doublings} doublings ran")
