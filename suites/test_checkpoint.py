"""Activation checkpointing, torch.utils.checkpoint.checkpoint (CKPT-*): a random program run as
`fn`, a function of some of its leaves (its arguments; it takes the others from its closure) that
returns its output (for CKPT-1, with up to two more tensors), once checkpointed and once plainly,
in both forms, use_reentrant=False and True.

Gradients are compared with the analytic float64 ones (autograd_conformance/harness/oracles.py),
and with the plain program's in the same engine where a random draw makes the analytic oracle
blind (CKPT-5).
"""

import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.checks import assert_grads_only_where_expected
from autograd_conformance.harness.counts import CHECKPOINT_OUTPUTS, counts
from autograd_conformance.harness.oracles import Gradients, analytic_grads
from autograd_conformance.harness.program import Program
from autograd_conformance.harness.script import Script, tensor_literal
from autograd_conformance.harness.strategies import cotangents, programs, recorded_intermediates

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control
CHECKPOINT = "torch.utils.checkpoint.checkpoint"
NO_USE_REENTRANT_WARNING = "the use_reentrant parameter should be passed explicitly"
REENTRANT_GRAD_MESSAGE = (
    "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
    "`inputs` parameter to .backward(). To resolve this error, you can either set "
    "use_reentrant=False, or call .backward() without passing the `inputs` argument.")


# -- a program as the checkpointed function ------------------------------------------------------

@st.composite
def checkpointed(draw, engine, *, requiring_argument: bool,
                 **options) -> tuple[Program, tuple[str, ...]]:
    """A program and the leaves its function takes as arguments, one or more of those its output
    uses; with `requiring_argument` (the reentrant form needs it), one that requires grad."""
    program = draw(programs(engine, **options), label="program")
    used = [leaf.name for leaf in program.leaves if leaf.name in program.ancestors()]
    chosen = draw(st.lists(st.sampled_from(used), min_size=1, max_size=len(used), unique=True),
                  label="arguments")
    if requiring_argument and not any(program.leaf(name).requires_grad for name in chosen):
        program = program.with_requires_grad({chosen[0]: True})
    return program, tuple(name for name in used if name in chosen)


def _define(script: Script, program: Program, args, *, first_lines=(), last_lines=(),
            returns="out") -> None:
    """The program's leaves, and `fn`: its nodes as a function of the leaves `args`, returning
    `returns` (its output); `first_lines` open fn's body, `last_lines` follow the program's."""
    script.run(*[f"{leaf.name} = {tensor_literal(leaf.values, program.dtype, leaf.requires_grad)}"
                 for leaf in program.leaves])
    body = [*first_lines, *program.script_lines(given=[leaf.name for leaf in program.leaves]),
            *last_lines, f"return {returns}"]
    script.run(f"def fn({', '.join(args)}):\n" + textwrap.indent("\n".join(body), "    "))


def _call(args, reentrant: bool | None) -> str:
    """checkpoint(fn, *args, use_reentrant=reentrant); reentrant None leaves the argument out."""
    keyword = [] if reentrant is None else [f"use_reentrant={reentrant}"]
    return f"{CHECKPOINT}({', '.join(['fn', *args, *keyword])})"


def _reentrant_call(script: Script, data, args) -> None:
    """out = checkpoint(fn, *args) in the reentrant form: use_reentrant=True, or left out, which
    torch 2.13 takes as True after a UserWarning asking for it explicitly."""
    if data.draw(st.booleans(), label="use_reentrant left out"):
        script.warns(f"out = {_call(args, None)}", NO_USE_REENTRANT_WARNING)
    else:
        script.run(f"out = {_call(args, True)}")


def _forget_grads(script: Script, program: Program) -> None:
    """Keep each leaf's .grad in `checkpointed` and start the leaves afresh for the plain run."""
    names = [leaf.name for leaf in program.grad_leaves()]
    script.run("checkpointed = {" + ", ".join(f"{name!r}: {name}.grad" for name in names) + "}",
               *[f"{name}.grad = None" for name in names])


def _check_agrees_with_plain(script: Script, program: Program, magnitude: float) -> None:
    """Each leaf's .grad from the checkpointed run equals the plain run's, now in .grad."""
    __tracebackhide__ = True
    for leaf in program.grad_leaves():
        script.check_agrees(f"checkpointed[{leaf.name!r}]", f"{leaf.name}.grad",
                            dtype=program.dtype, oracle="the plain fn's", magnitude=magnitude)


# -- CKPT-1, CKPT-2, CKPT-3: the same gradients, from fn run again -------------------------------

@st.composite
def _returns(draw, program: Program) -> list[tuple[str, str, float]]:
    """What fn returns: one to three tensors, the program's output first, then distinct
    intermediates that require grad, then, where the program has too few, its output times 2.0
    and 3.0; each as (fn's expression, the program's variable, the scale)."""
    count = draw(counts(CHECKPOINT_OUTPUTS), label="outputs of fn")
    others = recorded_intermediates(program)
    taken = min(count - 1, len(others))
    chosen = draw(st.lists(st.sampled_from(others), min_size=taken, max_size=taken, unique=True)
                  if taken else st.just([]), label="intermediates returned")
    scaled = [float(scale) for scale in range(2, 2 + count - 1 - taken)]
    return ([("out", program.output, 1.0)] + [(name, name, 1.0) for name in chosen]
            + [(f"out * {scale}", program.output, scale) for scale in scaled])


def _returned(returns) -> str:
    """fn's return expression: its one output, or the tuple of them."""
    texts = [text for text, _, _ in returns]
    return texts[0] if len(texts) == 1 else f"({', '.join(texts)})"


def _backward_of_weighted_outputs(script: Script, program: Program, returns, weights,
                                  outputs: str) -> None:
    """backward() of sum_k (o_k * w_k).sum() over fn's outputs o_k (the script's `outputs`, a
    tensor or a tuple), each weighted by its own w_k."""
    script.run(*(f"w{k} = {tensor_literal(w, program.dtype)}" for k, w in enumerate(weights)))
    terms = ([f"({outputs} * w0).sum()"] if len(returns) == 1
             else [f"({outputs}[{k}] * w{k}).sum()" for k in range(len(returns))])
    script.run(f"({' + '.join(terms)}).backward()")


@behaviour("CKPT-1")
@needs("checkpoint")
@given(data=st.data())
def test_checkpoint_gives_the_plain_programs_value_and_gradients(engine, data):
    """fn's values, and after backward() each leaf's gradient, arguments and closure leaves alike:
    the analytic ones, and those of the plain fn run anew. fn returns one to three tensors, and
    backward() starts from sum_k (o_k * w_k).sum(), each output o_k weighted by its own w_k, so a
    checkpoint that backpropagates some outputs only loses the others' w_k^T J_k."""
    reentrant = data.draw(st.booleans(), label="use_reentrant")
    program, args = data.draw(checkpointed(engine, requiring_argument=reentrant), label="program")
    returns = data.draw(_returns(program), label="fn returns")
    values_ = program.evaluate()
    weights = [data.draw(cotangents(values_[variable].shape, program.dtype), label=f"w{k}")
               for k, (_, variable, _) in enumerate(returns)]
    names = [leaf.name for leaf in program.grad_leaves()]
    products = [analytic_grads(Program(program.dtype, program.leaves, program.nodes, variable),
                               scale * w, wrt=names)
                for (_, variable, scale), w in zip(returns, weights)]
    expected = Gradients({name: sum(each[name] for each in products) for name in names},
                         sum(each.magnitude for each in products))
    script = Script(engine)
    _define(script, program, args, returns=_returned(returns))
    script.run(f"outputs = {_call(args, reentrant)}")
    for k, (text, variable, scale) in enumerate(returns):
        script.check_close("outputs" if len(returns) == 1 else f"outputs[{k}]",
                           scale * values_[variable], dtype=program.dtype,
                           oracle=f"analytic forward of {text}")
    _backward_of_weighted_outputs(script, program, returns, weights, "outputs")
    for name in names:
        script.check_close(f"{name}.grad", expected[name], dtype=program.dtype,
                           oracle="analytic sum of w_k^T J_k", magnitude=expected.magnitude)
    _forget_grads(script, program)
    script.run(f"plain = fn({', '.join(args)})")
    _backward_of_weighted_outputs(script, program, returns, weights, "plain")
    _check_agrees_with_plain(script, program, expected.magnitude)


@behaviour("CKPT-2")
@needs("checkpoint")
@given(data=st.data())
def test_checkpoint_runs_fn_again_in_backward(engine, data):
    """fn is called once by checkpoint, and once more by the backward() that needs what it saved
    (the program saves tensors on its output's path)."""
    reentrant = data.draw(st.booleans(), label="use_reentrant")
    program, args = data.draw(checkpointed(engine, requiring_argument=reentrant, saves_tensors=True),
                              label="program")
    script = Script(engine)
    script.run("calls = []")
    _define(script, program, args, first_lines=["calls.append(1)"])
    script.run(f"out = {_call(args, reentrant)}")
    script.check("len(calls) == 1", "checkpoint called fn {len(calls)} times, expected once")
    script.run("out.backward()")
    script.check("len(calls) == 2", "after backward fn was called {len(calls)} times in all, "
                 "expected twice: once at forward, once to recompute what it saved")


@behaviour("CKPT-3")
@needs("checkpoint", "saved_tensor_hooks")
@given(data=st.data())
def test_checkpoint_saves_none_of_fns_intermediates(engine, data):
    """A pack hook open around the checkpoint call is given no tensor but fn's arguments (the
    program saves tensors on its output's path, mostly intermediate results); backward() still
    gives the analytic gradients."""
    reentrant = data.draw(st.booleans(), label="use_reentrant")
    program, args = data.draw(checkpointed(engine, requiring_argument=reentrant, saves_tensors=True),
                              label="program")
    expected = analytic_grads(program)
    script = Script(engine)
    _define(script, program, args)
    script.run("packed = []",
               "def pack(t):\n    packed.append(t)\n    return t",
               "with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):\n"
               f"    out = {_call(args, reentrant)}",
               f"arguments = [{', '.join(args)}]")
    script.check("all(any(t is a for a in arguments) for t in packed)",
                 "the pack hook got tensors that are not fn's arguments: "
                 "{[tuple(t.shape) for t in packed if not any(t is a for a in arguments)]}")
    script.run("out.backward()")
    for leaf in program.grad_leaves():
        script.check_close(f"{leaf.name}.grad", expected[leaf.name], dtype=program.dtype,
                           oracle="analytic", magnitude=expected.magnitude)


# -- CKPT-4: autograd.grad and backward(inputs=...) --------------------------------------------

@behaviour("CKPT-4")
@needs("checkpoint", "autograd_grad")
@given(data=st.data())
def test_non_reentrant_checkpoint_serves_autograd_grad(engine, data):
    """autograd.grad(out, leaves) through a use_reentrant=False checkpoint returns the analytic
    gradients, of closure leaves too, and leaves every .grad None."""
    program, args = data.draw(checkpointed(engine, requiring_argument=False), label="program")
    names = [leaf.name for leaf in program.grad_leaves()]
    expected = analytic_grads(program)
    script = Script(engine)
    _define(script, program, args)
    script.run(f"out = {_call(args, False)}",
               f"grads = torch.autograd.grad(out, [{', '.join(names)}])")
    for index, name in enumerate(names):
        script.check_close(f"grads[{index}]", expected[name], dtype=program.dtype,
                           oracle="analytic", magnitude=expected.magnitude)
        script.check_equal(f"{name}.grad", None, why="autograd.grad fills no .grad")


@behaviour("CKPT-4")
@needs("checkpoint", "backward_inputs")
@given(data=st.data())
def test_non_reentrant_checkpoint_serves_backward_inputs(engine, data):
    """backward(inputs=[...]) through a use_reentrant=False checkpoint fills the .grad of exactly
    the leaves listed, with the analytic gradients."""
    program, args = data.draw(checkpointed(engine, requiring_argument=False), label="program")
    names = [leaf.name for leaf in program.grad_leaves()]
    inputs = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names),
                                unique=True), label="inputs")
    expected = analytic_grads(program, wrt=inputs)
    script = Script(engine)
    _define(script, program, args)
    script.run(f"out = {_call(args, False)}", f"out.backward(inputs=[{', '.join(inputs)}])")
    assert_grads_only_where_expected(script, program, expected, oracle="analytic",
                                     why_none="is not in inputs")


# -- CKPT-5: random draws replayed ---------------------------------------------------------------

@behaviour("CKPT-5")
@needs("checkpoint")
@given(data=st.data())
def test_recomputation_replays_the_random_draws(engine, data):
    """fn draws from torch.rand first and scales its output by the draw at the end (a product
    that saves the draw; scaling the output keeps the program's ops where the generator drew
    them, inside their smooth domain): the recomputation in backward draws the same values as
    fn's forward, the gradients are the plain fn's from the same seed, and with a draw between
    forward and backward, the draw after backward is the one the plain run makes next, as if the
    recomputation had drawn nothing."""
    reentrant = data.draw(st.booleans(), label="use_reentrant")
    program, args = data.draw(checkpointed(engine, requiring_argument=True), label="program")
    seed = data.draw(st.integers(0, 2**16), label="seed")
    draw = [f"draw = torch.rand({program.output_shape()!r}, dtype=torch.{program.dtype})",
            "draws.append(draw)"]
    script = Script(engine)
    script.run("draws = []")
    _define(script, program, args, first_lines=draw, last_lines=["out = out * (draw * 0.5 + 0.5)"])
    script.run(f"torch.manual_seed({seed})", f"out = {_call(args, reentrant)}",
               "between = torch.rand(3)", "out.backward()", "after = torch.rand(3)")
    script.check("len(draws) == 2", "fn ran {len(draws)} times, expected twice (forward, "
                 "recomputation in backward)")
    script.check("np.array_equal(values(draws[1]), values(draws[0]))",
                 "the recomputation drew {draws[1]}, fn's forward {draws[0]}")
    _forget_grads(script, program)
    script.run(f"torch.manual_seed({seed})", f"plain = fn({', '.join(args)})",
               "plain_between = torch.rand(3)", "plain.backward()", "plain_after = torch.rand(3)")
    _check_agrees_with_plain(script, program, analytic_grads(program).magnitude)
    script.check("np.array_equal(values(after), values(plain_after))",
                 "after backward torch.rand gave {after}, the plain run's next draw is "
                 "{plain_after}")


# -- CKPT-6, CKPT-7, CKPT-8: what the reentrant form refuses and needs ---------------------------

@st.composite
def reentrant_with_inputs(draw, engine) -> tuple[Program, tuple[str, ...], list[str]]:
    """A program for the reentrant form, and the inputs a call asks gradients for: arguments that
    require grad, so that the walk must pass the checkpoint's node (a leaf fn takes from its
    closure is not on the outer graph at all)."""
    program, args = draw(checkpointed(engine, requiring_argument=True), label="program")
    requiring = [name for name in args if program.leaf(name).requires_grad]
    inputs = draw(st.lists(st.sampled_from(requiring), min_size=1, max_size=len(requiring),
                           unique=True), label="inputs")
    return program, args, inputs


@behaviour("CKPT-6")
@control("test_checkpoint.py::test_non_reentrant_checkpoint_serves_autograd_grad")
@needs("checkpoint", "autograd_grad")
@given(data=st.data())
def test_reentrant_checkpoint_refuses_autograd_grad(engine, data):
    program, args, inputs = data.draw(reentrant_with_inputs(engine), label="program")
    script = Script(engine)
    _define(script, program, args)
    _reentrant_call(script, data, args)
    script.raises(f"torch.autograd.grad(out, [{', '.join(inputs)}])")


@behaviour("CKPT-6")
@control("test_checkpoint.py::test_non_reentrant_checkpoint_serves_backward_inputs")
@needs("checkpoint", "backward_inputs")
@given(data=st.data())
def test_reentrant_checkpoint_refuses_backward_inputs(engine, data):
    program, args, inputs = data.draw(reentrant_with_inputs(engine), label="program")
    script = Script(engine)
    _define(script, program, args)
    _reentrant_call(script, data, args)
    script.raises(f"out.backward(inputs=[{', '.join(inputs)}])")


@behaviour("CKPT-7")
@control("test_checkpoint.py::test_non_reentrant_checkpoint_serves_autograd_grad")
@needs("checkpoint", "autograd_grad", "messages")
@given(data=st.data())
def test_reentrant_checkpoint_refusal_message(engine, data):
    program, args, inputs = data.draw(reentrant_with_inputs(engine), label="program")
    script = Script(engine)
    _define(script, program, args)
    script.run(f"out = {_call(args, True)}")
    script.raises(f"torch.autograd.grad(out, [{', '.join(inputs)}])", REENTRANT_GRAD_MESSAGE)


@st.composite
def closure_grads_only(draw, engine) -> tuple[Program, tuple[str, ...]]:
    """A program whose function takes only leaves that do not require grad as arguments (maybe
    none), while a leaf it takes from its closure does. The program's output is computed (it
    saves tensors): returned as it is, a closure leaf would be the reentrant form's output itself,
    which torch's Function then marks as not requiring grad, the leaf included."""
    program = draw(programs(engine, saves_tensors=True), label="program")
    used = [leaf for leaf in program.leaves if leaf.name in program.ancestors()]
    kept = draw(st.sampled_from([leaf.name for leaf in used if leaf.requires_grad]),
                label="closure leaf that requires grad")
    others = [leaf.name for leaf in used if leaf.name != kept]
    chosen = draw(st.lists(st.sampled_from(others), unique=True, max_size=len(others))
                  if others else st.just([]), label="arguments")
    args = tuple(name for name in others if name in chosen)
    return program.with_requires_grad(dict.fromkeys(args, False)), args


@behaviour("CKPT-8")
@needs("checkpoint")
@given(data=st.data())
def test_reentrant_checkpoint_needs_an_argument_that_requires_grad(engine, data):
    """No argument requires grad, a closure leaf does: the reentrant form warns and its output
    does not require grad; the non-reentrant one's does, and backward() gives the closure leaves
    their analytic gradients."""
    program, args = data.draw(closure_grads_only(engine), label="program")
    expected = analytic_grads(program)
    script = Script(engine)
    _define(script, program, args)
    script.warns(f"reentrant = {_call(args, True)}",
                 "None of the inputs have requires_grad=True")
    script.check_equal("reentrant.requires_grad", False,
                       why="the reentrant form with no argument that requires grad")
    script.run(f"out = {_call(args, False)}")
    script.check_equal("out.requires_grad", True, why="a closure leaf requires grad")
    script.run("out.backward()")
    for leaf in program.grad_leaves():
        script.check_close(f"{leaf.name}.grad", expected[leaf.name], dtype=program.dtype,
                           oracle="analytic", magnitude=expected.magnitude)
