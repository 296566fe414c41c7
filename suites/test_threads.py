"""Autograd used from several Python threads at once, as the autograd note's "Multithreaded
Autograd" describes (THR-*): grad mode and saved-tensor hooks are per thread, concurrent backward
calls on graphs that share a leaf add all their gradients into its .grad, concurrent
autograd.grad calls each get their own, and a graph shared by threads needs retain_graph.

What the threads do relative to each other is the test's choice, never the scheduler's: one example
is one interleaving, and its reproducer replays the same one. The threads meet at a barrier
(`sync.wait()` in their bodies), so that what one thread does while another is in a given state is
decided by the script; where several threads run the same step (a backward, an autograd.grad),
they take it in turns (`with sync.turn(i):`) whose order the test draws: the threads of a turn
start the step together (they leave a barrier of their own at once), a turn starts only after
every thread of the turns before it finished its step, and at least one turn has two threads or
more, so that some of them always run the step at the same time. `in_threads` joins the threads
and raises in the test what any of them raised.

Only what an engine does inside a step while another thread is inside its own is left to the
scheduler: an engine that races there may fail an example in one run and not in the next, which
the runner reports as unstable (autograd_conformance/runner/stability.py)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograd_conformance.harness.script import Script, tensor_literal
from autograd_conformance.harness.strategies import float_dtypes, full_precision_values, shapes

behaviour = pytest.mark.behaviour
needs = pytest.mark.needs
control = pytest.mark.control
pytestmark = needs("threads")

# The script's helpers: run bodies in threads of their own at once, with a barrier for them to meet
# at and turns for them to take, and raise here what a thread raised (a body that fails breaks the
# barriers and ends the turns for the others).
THREADS = (
    "import contextlib",
    "import threading",
    "import time",
    "class Sync:",
    "    '''Where the threads meet: wait() is a barrier of them all; `with turn(i):` runs thread",
    "    i's step in its turn of `turns` (lists of threads): together with the other threads of",
    "    its turn, and after every thread of the turns before it finished its step.'''",
    "    def __init__(self, count, turns):",
    "        self.barrier = threading.Barrier(count, timeout=10)",
    "        self.turns = turns",
    "        self.together = [threading.Barrier(len(turn), timeout=10) for turn in turns]",
    "        self.left = [len(turn) for turn in turns]",
    "        self.finished = [threading.Event() for turn in turns]",
    "        self.lock = threading.Lock()",
    "    def wait(self):",
    "        self.barrier.wait()",
    "    @contextlib.contextmanager",
    "    def turn(self, i):",
    "        k = next(k for k, turn in enumerate(self.turns) if i in turn)",
    "        if k and not self.finished[k - 1].wait(10):",
    "            raise TimeoutError(f'turn {k - 1} did not finish in 10 s')",
    "        self.together[k].wait()  # the threads of this turn start their step at once",
    "        try:",
    "            yield",
    "        finally:",
    "            with self.lock:",
    "                self.left[k] -= 1",
    "                if not self.left[k]:",
    "                    self.finished[k].set()  # the next turn may start",
    "    def abort(self):",
    "        for barrier in (self.barrier, *self.together):",
    "            barrier.abort()",
    "        for finished in self.finished:",
    "            finished.set()",
    "def in_threads(*bodies, turns=None):",
    "    '''Run each body(sync, i) in a thread of its own, all at once, and return what each",
    "    returned; `turns`: the order of their steps (default: one turn, all together).'''",
    "    sync = Sync(len(bodies), turns or [list(range(len(bodies)))])",
    "    results, errors = [None] * len(bodies), []",
    "    def run(i):",
    "        try:",
    "            results[i] = bodies[i](sync, i)",
    "        except Exception as error:",
    "            errors.append(error)",
    "            sync.abort()  # the others stop waiting for this thread",
    "    threads = [threading.Thread(target=run, args=(i,), daemon=True)",
    "               for i in range(len(bodies))]",
    "    for thread in threads:",
    "        thread.start()",
    "    deadline = time.monotonic() + 20",
    "    for thread in threads:",
    "        thread.join(max(0.0, deadline - time.monotonic()))",
    "    assert not any(thread.is_alive() for thread in threads), 'a thread still runs after 20 s'",
    "    if errors:",
    "        raise errors[0]",
    "    return results",
)

# Scalar graphs of a leaf x and a coefficient c: source, and the gradient with respect to x.
GRAPHS = {
    "square": ("(c * x * x).sum()", lambda x, c: 2 * c * x),
    "exp": ("torch.exp(c * x).sum()", lambda x, c: c * np.exp(c * x)),
    "tanh": ("torch.tanh(c * x).sum()", lambda x, c: c * (1 - np.tanh(c * x) ** 2)),
}
# Heads that save tensors (a second pass through them needs retain_graph): source, derivative.
HEADS = {"exp": ("torch.exp(x)", np.exp), "square": ("x * x", lambda x: 2 * x)}
COEFFICIENTS = st.tuples(st.sampled_from((-1.0, 1.0)),
                         st.floats(0.25, 1.5, width=32)).map(lambda pair: pair[0] * pair[1])
THREAD_COUNTS = st.integers(2, 4)
# Grad modes that stop recording, as a thread enters them, and the capability each needs.
MODES = {"torch.no_grad()": "grad_mode", "torch.set_grad_enabled(False)": "grad_mode",
         "torch.inference_mode()": "inference_mode"}


@st.composite
def _leaf(draw, engine):
    """A dtype and the values of a leaf x of a random shape, of magnitude at least 0.75."""
    dtype = draw(float_dtypes(engine), label="dtype")
    return dtype, draw(full_precision_values(draw(shapes(), label="shape"), dtype), label="x")


def _start(engine, data):
    """A script that defines the leaf x and in_threads; the dtype and x's values."""
    dtype, x = data.draw(_leaf(engine), label="leaf")
    script = Script(engine)
    script.run(*THREADS, f"x = {tensor_literal(x, dtype, requires_grad=True)}")
    return script, dtype, x


def _bodies(name, graphs, step):
    """One thread body per (graph, coefficient) in `graphs`, `name_0`, `name_1`...: each builds its
    own graph of x as y, waits until every thread has built its own, then runs `step` in its
    turn."""
    lines = []
    for k, (graph, c) in enumerate(graphs):
        lines += [f"def {name}_{k}(sync, i):",
                  f"    c = {c!r}",
                  f"    y = {GRAPHS[graph][0]}",
                  "    sync.wait()  # every thread has built its graph",
                  "    with sync.turn(i):",
                  f"        {step}"]
    return lines, ", ".join(f"{name}_{k}" for k in range(len(graphs)))


def _graphs(data):
    """2 to 4 (graph, coefficient) pairs, one per thread."""
    count = data.draw(THREAD_COUNTS, label="threads")
    return [(data.draw(st.sampled_from(sorted(GRAPHS)), label=f"graph {k}"),
             data.draw(COEFFICIENTS, label=f"c {k}")) for k in range(count)]


@st.composite
def _turns(draw, count):
    """The order in which `count` threads take a step: the threads in a drawn order, cut into
    turns (lists of threads), fewer turns than threads, so that at least one turn has two or more
    threads that run the step at the same time. Shrinks towards one turn of them all."""
    threads = draw(st.permutations(range(count)))
    cuts = sorted(draw(st.sets(st.integers(1, count - 1), max_size=count - 2)))
    return [threads[start:end] for start, end in zip([0, *cuts], [*cuts, count])]


@behaviour("THR-1")
@needs("grad_mode")
@given(data=st.data(), observer_first=st.booleans(), outer_no_grad=st.booleans())
def test_grad_mode_is_per_thread(engine, data, observer_first, outer_no_grad):
    """While one thread is inside a grad mode that disables recording, a thread running at the
    same time still records and sees is_grad_enabled(); a new thread starts in grad mode even
    when the thread that starts it is under no_grad."""
    mode = data.draw(st.sampled_from([mode for mode, needed in MODES.items()
                                      if engine.has(needed)]), label="mode")
    script, _, _ = _start(engine, data)
    c = data.draw(COEFFICIENTS, label="c")
    script.run("def switcher(sync, i):",
               f"    with {mode}:",
               "        sync.wait()  # the observer looks while this thread is in the mode",
               "        sync.wait()",
               f"        return torch.is_grad_enabled(), (x * {c!r}).requires_grad",
               "def observer(sync, i):",
               "    sync.wait()  # the switcher is in the mode now",
               f"    y = x * {c!r}",
               "    seen = torch.is_grad_enabled(), y.requires_grad, y.grad_fn is not None",
               "    sync.wait()",
               "    return seen")
    order = ("observer", "switcher") if observer_first else ("switcher", "observer")
    results = {"observer": "observed", "switcher": "switched"}
    call = f"{', '.join(results[body] for body in order)} = in_threads({', '.join(order)})"
    script.run(*(["with torch.no_grad():", f"    {call}"] if outer_no_grad else [call]))
    script.check("observed == (True, True, True)",
                 f"while another thread was inside {mode}, a thread "
                 f"{'started under no_grad ' if outer_no_grad else ''}saw (is_grad_enabled(), "
                 "requires_grad, has a grad_fn) = {observed}: grad mode is per thread")
    script.check("switched == (False, False)",
                 f"inside {mode} in its own thread, (is_grad_enabled(), requires_grad) = "
                 "{switched}")


@behaviour("THR-2")
@needs("saved_tensor_hooks")
@given(data=st.data(), count=THREAD_COUNTS, outer_hooks=st.booleans())
def test_saved_tensor_hooks_are_per_thread(engine, data, count, outer_hooks):
    """One thread opens saved_tensors_hooks and waits inside them while the other threads compute
    exp(x), which saves its result: only the first thread's own exp(x) is packed, and unpacked at
    its backward; hooks the main thread has open while it runs the threads pack nothing either."""
    hooked = data.draw(st.integers(0, count - 1), label="hooked thread")
    script, dtype, x = _start(engine, data)
    script.run("calls = []",
               "def hooks(who):",
               "    return torch.autograd.graph.saved_tensors_hooks(",
               "        lambda t: calls.append(('pack', who)) or t,",
               "        lambda t: calls.append(('unpack', who)) or t)",
               "def hooked(sync, i):",
               "    with hooks(i):",
               "        sync.wait()  # the other threads compute while these hooks are open",
               "        sync.wait()",
               "        return torch.exp(x)",
               "def plain(sync, i):",
               "    sync.wait()",
               "    y = torch.exp(x)",
               "    sync.wait()",
               "    return y")
    call = "outputs = in_threads(" + ", ".join(
        "hooked" if k == hooked else "plain" for k in range(count)) + ")"
    script.run(*(["with hooks('main'):", f"    {call}"] if outer_hooks else [call]))
    script.check(f"calls == [('pack', {hooked})]",
                 f"only thread {hooked} had hooks open, but exp's saved results went through "
                 "{calls}: saved-tensor hooks are per thread")
    script.run("for y in outputs:", "    y.sum().backward()")
    script.check(f"calls == [('pack', {hooked}), ('unpack', {hooked})]",
                 "backward of each thread's exp(x) unpacked {calls[1:]}, expected only thread "
                 f"{hooked}'s")
    script.check_close("x.grad", count * np.exp(x), dtype=dtype, oracle=f"{count} exp(x)")


@behaviour("THR-3")
@given(data=st.data(), earlier=st.booleans())
def test_concurrent_backward_calls_add_up_in_a_shared_leaf(engine, data, earlier):
    """2 to 4 threads each build a graph of their own from the shared leaf x and call backward on
    it, in drawn turns (some of them at the same time): x.grad ends as what it held (None, or 2 x
    from an earlier backward) plus every thread's gradient."""
    script, dtype, x = _start(engine, data)
    graphs = _graphs(data)
    order = data.draw(_turns(len(graphs)), label="turns")
    lines, names = _bodies("backward", graphs, "y.backward()")
    if earlier:
        script.run("(x * x).sum().backward()")
    script.run(*lines, f"in_threads({names}, turns={order!r})")
    expected = sum(GRAPHS[graph][1](x, c) for graph, c in graphs) + (2 * x if earlier else 0)
    script.check_close("x.grad", expected, dtype=dtype,
                       oracle=f"{'2 x + ' if earlier else ''}the sum of {len(graphs)} threads' "
                       "analytic gradients")


@behaviour("THR-4")
@needs("autograd_grad")
@given(data=st.data())
def test_concurrent_autograd_grad_calls_each_get_their_own(engine, data):
    """2 to 4 threads each build a graph of their own from the shared leaf x and call autograd.grad
    on it, in drawn turns (some of them at the same time): each gets its own graph's gradient, and
    x.grad stays None."""
    script, dtype, x = _start(engine, data)
    graphs = _graphs(data)
    order = data.draw(_turns(len(graphs)), label="turns")
    lines, names = _bodies("grad", graphs, "return torch.autograd.grad(y, [x])[0]")
    script.run(*lines, f"results = in_threads({names}, turns={order!r})")
    for k, (graph, c) in enumerate(graphs):
        script.check_close(f"results[{k}]", GRAPHS[graph][1](x, c), dtype=dtype,
                           oracle=f"analytic, thread {k}'s own graph")
    script.check("x.grad is None", "concurrent autograd.grad calls filled x.grad: {x.grad}")


@behaviour("THR-5")
@given(data=st.data(), same_output=st.booleans())
def test_threads_backward_through_a_shared_graph_with_retain_graph(engine, data, same_output):
    """A head h of x, saving tensors, is built in the main thread; 2 to 4 threads then call
    backward(retain_graph=True), in drawn turns (some of them at the same time), on one output
    (h * c).sum() or each on a tail of its own (h * c_k).sum(): every call succeeds and x.grad is
    the sum of their gradients."""
    head = data.draw(st.sampled_from(sorted(HEADS)), label="head")
    script, dtype, x = _start(engine, data)
    count = data.draw(THREAD_COUNTS, label="threads")
    coefficients = [data.draw(COEFFICIENTS, label=f"c {k}")
                    for k in range(1 if same_output else count)]
    order = data.draw(_turns(count), label="turns")
    script.run(f"h = {HEADS[head][0]}")
    if same_output:
        coefficients *= count  # each thread's gradient: c h'(x)
        script.run(f"out = (h * {coefficients[0]!r}).sum()",
                   "def shared(sync, i):",
                   "    sync.wait()  # every thread is ready",
                   "    with sync.turn(i):",
                   "        out.backward(retain_graph=True)",
                   f"in_threads(*[shared] * {count}, turns={order!r})")
    else:
        lines = []
        for k, c in enumerate(coefficients):
            lines += [f"def tail_{k}(sync, i):", f"    out = (h * {c!r}).sum()",
                      "    sync.wait()  # every thread has built its tail",
                      "    with sync.turn(i):",
                      "        out.backward(retain_graph=True)"]
        script.run(*lines, "in_threads(" + ", ".join(f"tail_{k}" for k in range(count))
                   + f", turns={order!r})")
    script.check_close("x.grad", sum(coefficients) * HEADS[head][1](x), dtype=dtype,
                       oracle=f"the sum of {count} threads' analytic gradients")


@behaviour("THR-5")
@control("test_threads.py::test_threads_backward_through_a_shared_graph_with_retain_graph")
@given(data=st.data(), first_in_a_thread=st.booleans())
def test_a_graph_freed_in_one_thread_raises_in_another(engine, data, first_in_a_thread):
    """A head h of x, saving tensors, is built in the main thread; a first backward through it
    without retain_graph (in the main thread or in a thread, joined) frees it: a second backward
    through h in another thread raises RuntimeError, as a second backward does (RETAIN-1)."""
    head = data.draw(st.sampled_from(sorted(HEADS)), label="head")
    script, _, _ = _start(engine, data)
    first, second = (data.draw(COEFFICIENTS, label=label) for label in ("c first", "c second"))
    script.run(f"h = {HEADS[head][0]}",
               "def first(sync, i):",
               f"    (h * {first!r}).sum().backward()",
               "def second(sync, i):",
               f"    (h * {second!r}).sum().backward()",
               "in_threads(first)" if first_in_a_thread else "first(None, 0)")
    script.raises("in_threads(second)")
