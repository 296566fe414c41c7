"""A test's steps, written once: each step runs on the engine and is kept as a line of a torch
script, so that the reproducer of a failing example is exactly what ran, with its checks.

A `Script` executes Python source in a namespace where `torch` is the engine's torch-like
namespace (the adapter). What it keeps prints as a complete program: under real torch it runs to
its end, every check passing; with `torch = <adapter>` bound after the import (its third line is
that binding for the engine it ran on, commented out: uncommented, it imports the adapter from any
directory), it fails at the check that failed in the suite, or at the statement where the engine
raised. A failure carries its script (a `Reproducer`: the script, its error, whether a check
failed and whose) and, for pytest's output, a note, so that each distinct failure of a test keeps
its own reproducer; the report reads it from there, and a baseline keeps it as the evidence of a
known gap (`replay`; a script that starts threads, until its outcome is certain:
`replay_until_certain`). Hypothesis may stop shrinking before it has removed every step that the
failure does not need (its budget ran out, on a slow engine): once a test has failed, its
reproducers lose the assignments that nothing reads and that replays show the failure does not
need (`drop_dead_lines`).

Whoever runs the tests may listen to the scripts (`listening`): the runner keeps a test's last
script for the report and journals every step, in case the engine takes the process down. The
library imports nothing of the runner.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import functools
import linecache
import re
import sys
import textwrap
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from .engine_state import changed, put_back, switches_of
from .engines import load_engine
from .oracles import TOLERANCES, Tolerance
from .program import Program

IMPORTS = "import numpy as np\nimport torch\n"
# The line after the imports, in a script of no particular engine (see `header`).
BINDING = ("# To check another engine, bind torch to its adapter on the line above: "
           "torch = <adapter>\n")
# What runs after that line, in the printed script and in the engine's namespace alike.
PRELUDE = '''\
to_numpy = getattr(torch, "to_numpy", lambda t: t.detach().numpy())


def values(x):
    """A tensor's values, or an array or number as it is, as float64 NumPy."""
    plain = isinstance(x, (np.ndarray, np.generic, list, tuple, float, int))
    return np.asarray(x if plain else to_numpy(x), dtype=np.float64)


def assert_close(actual, expected, rtol, atol_scale, what, magnitude=0.0):
    """Fail unless `actual` is within rtol (relative) and atol of `expected`, where
    atol = atol_scale * max(1, the largest |expected|, the magnitude of the terms it adds up)."""
    assert actual is not None, f"{what} is None, expected {expected}"
    actual, expected = values(actual), values(expected)
    assert actual.shape == expected.shape, (
        f"{what} has shape {actual.shape}, expected {expected.shape}")
    atol = atol_scale * max(1.0, np.abs(expected).max(initial=0.0), magnitude)
    error = np.abs(actual - expected)
    assert np.all(error <= atol + rtol * np.abs(expected)), (
        f"{what} is off by up to {error.max():.3g} (allowed: rtol={rtol:g}, atol={atol:.3g})"
        f"\\n got:      {actual.tolist()}\\n expected: {expected.tolist()}")
'''
HEADER = IMPORTS + BINDING + PRELUDE + "\n\n"   # what a reproducer of no particular engine starts with
_PRELUDE_NAME = "<reproducer prelude>"
_PRELUDE_CODE = compile(PRELUDE, _PRELUDE_NAME, "exec")
linecache.cache[_PRELUDE_NAME] = (len(PRELUDE), None, PRELUDE.splitlines(True), _PRELUDE_NAME)
NOTE_PREFIX = "Reproducer (torch script)"
REPRODUCER = "conformance_reproducer"   # the attribute of a failure that holds its Reproducer

_HELPERS = {__file__, str(Path(__file__).with_name("checks.py"))}


def header(engine) -> str:
    """What a reproducer of `engine` starts with: HEADER, its BINDING line replaced (so in as many
    lines) by the one that binds torch to `engine` (`Engine.binding`), commented out."""
    return (f"{IMPORTS}# {engine.binding}  # uncomment to run it on {engine.name} "
            f"(--engine {engine.spec})\n{PRELUDE}\n\n")


def body(script: str) -> str:
    """A reproducer's script without its header, whichever engine the header names."""
    return script.split("\n", HEADER.count("\n"))[-1]


class ScriptListener(Protocol):
    """What a listener hears: a script starting, and each step it records (before it runs)."""

    def script_started(self, script: Script) -> None: ...

    def step_recorded(self, script: Script) -> None: ...


_listeners: list[ScriptListener] = []


@contextlib.contextmanager
def listening(listener: ScriptListener):
    """While the block runs, `listener` hears every script of this process."""
    _listeners.append(listener)
    try:
        yield listener
    finally:
        _listeners.remove(listener)


def literal(values) -> str:
    """`values` (array-like) as a Python literal that reads back to the same floats."""
    text = repr(np.asarray(values, dtype=np.float64).tolist())
    return text.replace("nan", 'float("nan")').replace("inf", 'float("inf")')


def tensor_literal(values, dtype: str, requires_grad: bool = False) -> str:
    """The source of a tensor holding `values` (an array) in `dtype`."""
    flag = ", requires_grad=True" if requires_grad else ""
    return f"torch.tensor({literal(values)}, dtype=torch.{dtype}{flag})"


class Script:
    """The steps of one test example on `engine`, run as they are recorded."""

    def __init__(self, engine, behaviour: str | None = None):
        self.engine = engine
        self.behaviour = behaviour      # named in the note of a failure, if the test checks several
        self.program: Program | None = None
        self.lines: list[str] = []
        self.checks = 0                 # the checks run so far (a control must run one)
        self.names: dict = {"torch": engine.ns, "np": np}
        exec(_PRELUDE_CODE, self.names)
        for listener in _listeners:
            listener.script_started(self)

    # -- steps -----------------------------------------------------------------------------------
    def build(self, program: Program, *, given=(), wrap=None) -> dict:
        """Build `program`'s graph (its leaves, except those in `given`, which the script already
        defines); `wrap(name, line)` may replace a node's line with lines that change it (detach
        it, hook it, run it under no_grad). Returns every variable's tensor by name."""
        if wrap is None:
            self.program = program      # the report draws it; a wrapped program would mislead
        self.run(*program.script_lines(given=given, wrap=wrap))
        return {name: self.names[name] for name in program.variables()}

    def run(self, *lines: str) -> None:
        """Run `lines` (Python source, several statements or a block) on the engine."""
        __tracebackhide__ = True
        self._execute("\n".join(lines))

    def value(self, expression: str):
        """What `expression` evaluates to on the engine (nothing is recorded: for reading a value
        that a later step's text needs, never for a check)."""
        return eval(expression, self.names)

    # -- checks ----------------------------------------------------------------------------------
    def check(self, condition: str, message: str, *, show=(), behaviour: str | None = None) -> None:
        """Assert `condition` (Python source). `message` is an f-string's text in the script, so it
        may show values of the script's variables in braces; `show` names script expressions
        whose values a failure prints after it (what a suite's own f-string would have to escape
        as `{{...}}`)."""
        __tracebackhide__ = True
        shown = "".join(f"; {_text(expression)} = {{{_grouped(expression)}!r}}"
                        for expression in show)
        self._execute(f"assert {condition}, f{(message + shown)!r}", behaviour, check=True)

    def check_equal(self, expression: str, expected, *, why: str = "",
                    behaviour: str | None = None) -> None:
        """Assert that the script's `expression` is `expected`, a Python value written with repr
        (None and booleans compared with `is`, the rest with ==); a failure says what it was
        instead, and `why` it should have been that."""
        __tracebackhide__ = True
        operator = "is" if expected is None or isinstance(expected, bool) else "=="
        reason = f" ({_text(why)})" if why else ""
        value = _grouped(expression)
        self.check(f"{value} {operator} {expected!r}",
                   f"{_text(expression)} is {{{value}!r}}, expected {_text(repr(expected))}{reason}",
                   behaviour=behaviour)

    def check_grad_like(self, name: str, shape: tuple, *, behaviour: str | None = None) -> None:
        """Assert that the leaf `name` has a .grad of its own shape and dtype (LEAF-5, BC-2, BC-3)."""
        __tracebackhide__ = True
        self.check(f"{name}.grad is not None", f"{name} requires grad and takes part, but .grad is None",
                   behaviour=behaviour)
        self.check_equal(f"tuple({name}.grad.shape)", tuple(shape), why=f"{name}'s shape",
                         behaviour=behaviour)
        self.check(f"{name}.grad.dtype == {name}.dtype", f"{name}.grad's dtype is not {name}'s",
                   show=(f"{name}.grad.dtype", f"{name}.dtype"), behaviour=behaviour)

    def check_close(self, expression: str, expected, *, dtype: str, oracle: str,
                    magnitude: float = 0.0, tolerance: Tolerance | None = None,
                    behaviour: str | None = None) -> None:
        """Assert that the tensor `expression` matches `expected` (the `oracle`'s values) within
        `dtype`'s tolerance (autograd_conformance/harness/oracles.py), or the oracle's own `tolerance` where it is
        coarser; the absolute part scales with `magnitude` where the expected values add up
        larger terms (an analytic oracle's `Gradients.magnitude`). None fails as None."""
        __tracebackhide__ = True
        self.check_agrees(expression, literal(expected), dtype=dtype, oracle=oracle,
                          magnitude=magnitude, tolerance=tolerance, behaviour=behaviour)

    def check_agrees(self, actual: str, expected: str, *, dtype: str, oracle: str,
                     magnitude: float = 0.0, tolerance: Tolerance | None = None,
                     behaviour: str | None = None) -> None:
        """Assert that `actual` matches `expected`, both script expressions (tensors, arrays or
        literals: the engine against an algebraic oracle, or against itself), within `dtype`'s
        tolerance or the oracle's own, scaled as check_close's."""
        __tracebackhide__ = True
        tolerance = tolerance or TOLERANCES[dtype]
        what = f"{actual} ({oracle} oracle)"
        scale = f", magnitude={float(magnitude)!r}" if magnitude > 1 else ""
        self._execute(f"assert_close({actual}, {expected}, rtol={tolerance.rtol!r}, "
                      f"atol_scale={tolerance.atol_scale!r}, what={what!r}{scale})", behaviour,
                      check=True)

    def raises(self, code: str, message: str | None = None, *, error: str = "RuntimeError",
               behaviour: str | None = None) -> None:
        """Run `code` and assert that it raises `error` (with `message` in its text, if given)."""
        __tracebackhide__ = True
        check = (f"    assert {message!r} in str(error), f\"the error says: {{error}}\"\n"
                 if message else "    pass\n")
        self._execute(f"try:\n{textwrap.indent(code, '    ')}\nexcept {error} as error:\n{check}"
                      f"else:\n    raise AssertionError({(code + ' did not raise ' + error)!r})",
                      behaviour, check=True)

    @contextlib.contextmanager
    def control(self):
        """The steps in the block are the positive control of the test's refusals: the same
        program without the offending step, which must succeed with the right values, so that an
        engine that refuses too much fails. The block must check what it computed
        (tests/test_positive_controls.py finds a control in every test that expects an error)."""
        __tracebackhide__ = True
        checks = self.checks
        yield
        if self.checks == checks:
            raise ControlWithoutCheck("a positive control ran no check: it must check its values")

    def warns(self, code: str, match: str, *, category: str = "UserWarning",
              behaviour: str | None = None) -> None:
        """Run `code` recording every warning, and assert that one is a `category` with `match`
        in its text (what `pytest.warns(category, match=...)` checks)."""
        __tracebackhide__ = True
        failure = f"{code} gave no {category} saying {match!r}; it warned: "
        self._execute(f"import warnings\n"
                      f"with warnings.catch_warnings(record=True) as caught:\n"
                      f"    warnings.simplefilter('always')\n{textwrap.indent(code, '    ')}\n"
                      f"assert any(issubclass(w.category, {category}) and {match!r} in "
                      f"str(w.message) for w in caught), "
                      f"{failure!r} + repr([str(w.message) for w in caught])", behaviour,
                      check=True)

    # -- the printed script ----------------------------------------------------------------------
    def text(self) -> str:
        return header(self.engine) + "\n".join(self.lines) + "\n"

    def _execute(self, source: str, behaviour: str | None = None, *, check: bool = False) -> None:
        __tracebackhide__ = True
        self.lines.append(source)
        for listener in _listeners:
            listener.step_recorded(self)
        name = _step_name()
        # Tracebacks show the step's lines; hypothesis tells failures apart by where they were
        # raised, so a step is named by the suite line that runs it, not by its place in the
        # script, which moves with the size of each example's program.
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        self.checks += check
        try:
            exec(_compiled(source, name), self.names)
        except Exception as failure:
            if not hasattr(failure, REPRODUCER):
                self._attach(failure, name, behaviour or self.behaviour, check)
            raise

    def _attach(self, failure: BaseException, step: str, behaviour: str | None,
                check: bool) -> None:
        """Keep this script on `failure`, as its Reproducer and as a note pytest shows. A step
        that checks nothing is cut after the statement that raised, so that the script ends at
        the line where the engine failed."""
        if not check:
            self.lines[-1] = _up_to_raise(self.lines[-1], failure, step)
        text = self.text()
        reproducer = Reproducer(text, behaviour if check else None, check, error_line(failure),
                                text.count("\n"))
        setattr(failure, REPRODUCER, reproducer)
        failure.add_note(reproducer.note)


class ControlWithoutCheck(Exception):
    """A suite's positive control checked nothing: a mistake in the suite, not the engine's."""


@dataclass(frozen=True)
class Reproducer:
    """A failing example as a torch script, and what failed in it."""

    script: str                 # the script, up to the line that failed
    behaviour: str | None       # the behaviour its check named; None: the test's own
    check: bool                 # a check failed (else a step that checks nothing raised)
    error: str                  # the exception: "Type: its message's first line"
    line: int                   # the script's line (1-based) where it failed: its last

    @property
    def heading(self) -> str:
        what = f"of {self.behaviour} " if self.behaviour else ""
        kind = "failed check" if self.check else "the engine raised outside any check"
        return f"{NOTE_PREFIX} {what}({kind} at line {self.line}: {self.error})"

    @property
    def note(self) -> str:
        """The note that shows it on its failure, in pytest's output."""
        return f"{self.heading}:\n{self.script}"

    @property
    def starts_threads(self) -> bool:
        """Whether the script starts threads: then how they are scheduled may decide whether it
        fails on an engine that races, and one replay is not enough (`replay_until_certain`)."""
        return _STARTS_THREADS.search(self.script) is not None


_STARTS_THREADS = re.compile(
    r"^\s*(?:import|from)\s+(?:threading|concurrent\.futures|multiprocessing)\b", re.MULTILINE)


def error_line(failure: BaseException | None) -> str:
    """An exception as one line: its type and its message's first line."""
    if failure is None:
        return ""
    lines = str(failure).strip().splitlines()
    return f"{type(failure).__name__}: {lines[0]}" if lines else type(failure).__name__


def _up_to_raise(source: str, failure: BaseException, step: str) -> str:
    """`source` up to the end of its top-level statement that `failure` was raised in."""
    raised = [frame.lineno for frame in traceback.extract_tb(failure.__traceback__)
              if frame.filename == step]
    if not raised:
        return source
    for statement in ast.parse(source).body:
        if statement.lineno <= raised[-1] <= statement.end_lineno:
            return "\n".join(source.splitlines()[:statement.end_lineno])
    return source


def _text(text: str) -> str:
    """`text` as literal text of a script's f-string message: its braces doubled."""
    return text.replace("{", "{{").replace("}", "}}")


@functools.lru_cache(maxsize=4096)
def _grouped(expression: str) -> str:
    """`expression` as an operand: in parentheses unless it is a name, attribute, item or call."""
    simple = (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.Constant)
    return expression if isinstance(ast.parse(expression, mode="eval").body, simple) \
        else f"({expression})"


@functools.lru_cache(maxsize=4096)
def _compiled(source: str, name: str):
    """The code of a step: steps that repeat across examples (an op, a backward, a check) are
    compiled once."""
    return compile(source, name, "exec")


def _step_name() -> str:
    """`<step at test_x.py:42>`: the first caller outside the harness's check helpers."""
    frame = sys._getframe(2)
    while frame.f_back is not None and frame.f_code.co_filename in _HELPERS:
        frame = frame.f_back
    return f"<step at {_file_name(frame.f_code.co_filename)}:{frame.f_lineno}>"


@functools.cache
def _file_name(path: str) -> str:
    return Path(path).name


_REPLAY_NAME = "<recorded reproducer>"


def replay(reproducer: Reproducer, engine) -> Reproducer | None:
    """Run a recorded reproducer on `engine`: None when it runs to its end, else the reproducer as
    it fails now."""
    failed = _run(reproducer.script, engine)
    if failed is None:
        return None
    error, lines = failed
    return dataclasses.replace(reproducer, error=error, line=lines[-1] if lines else reproducer.line)


def _run(script: str, engine) -> tuple[str, list[int]] | None:
    """Run `script` with its `torch` bound to the engine's namespace, on the line of the import, so
    that line numbers stay the printed script's: None when it runs to its end, else its error
    (`error_line`) and the script's lines it was raised through, outermost first."""
    code = script.replace("import torch\n", "torch = __engine__\n", 1)
    linecache.cache[_REPLAY_NAME] = (len(code), None, code.splitlines(True), _REPLAY_NAME)
    try:
        exec(compile(code, _REPLAY_NAME, "exec"), {"__engine__": engine.ns, "__name__": "replay"})
    except Exception as failure:  # noqa: BLE001 - any way the engine fails the script
        return error_line(failure), [frame.lineno for frame in
                                     traceback.extract_tb(failure.__traceback__)
                                     if frame.filename == _REPLAY_NAME]
    return None


REPLAYS = 20            # replays of a reproducer that starts threads, at most
REPLAY_BUDGET_S = 10.0  # seconds for them, at most: an engine that hangs is not replayed 20 times


@dataclass
class Replays:
    """What the replays of one reproducer gave."""

    reproducer: Reproducer          # as recorded
    runs: int = 0
    failures: list[Reproducer] = dataclasses.field(default_factory=list)  # each as it failed

    @property
    def verdict(self) -> str:
        """"fails" (every replay failed), "passes" (none did) or "unstable" (both were seen)."""
        if not self.failures:
            return "passes"
        return "fails" if len(self.failures) == self.runs else "unstable"

    def __str__(self) -> str:
        return f"failed {len(self.failures)} of {self.runs} replays"


def replay_until_certain(reproducer: Reproducer, engine, replays: int = REPLAYS,
                         budget_s: float = REPLAY_BUDGET_S) -> Replays:
    """Replay `reproducer` on `engine` once or, where it starts threads (whose scheduling may
    decide its outcome on an engine that races), until it has both failed and run clean
    (unstable), or `replays` times, or for `budget_s` seconds, whichever comes first."""
    found = Replays(reproducer)
    deadline = time.monotonic() + budget_s
    for _ in range(replays if reproducer.starts_threads else 1):
        failed = replay(reproducer, engine)
        found.runs += 1
        if failed is not None:
            found.failures.append(failed)
        if found.verdict == "unstable" or time.monotonic() > deadline:
            break
    return found


def reproducers(failure: BaseException | None) -> list[Reproducer]:
    """The Reproducer of each failure in `failure`, in order (see `_carriers`)."""
    return [getattr(carrier, REPRODUCER) for carrier in _carriers(failure)]


def _carriers(failure: BaseException | None) -> list[BaseException]:
    """The exceptions in `failure` that carry a Reproducer: an exception group holds one per
    distinct failure that hypothesis found; an exception without one, those of the exception it
    was raised from."""
    if failure is None:
        return []
    if isinstance(failure, BaseExceptionGroup):
        return [found for member in failure.exceptions for found in _carriers(member)]
    if not hasattr(failure, REPRODUCER):   # a verdict raised from the failures it judged
        return _carriers(failure.__cause__)  # (runner/stability.py)
    return [failure]


def drop_dead_lines(failure: BaseException, engine, budget_s: float = REPLAY_BUDGET_S) -> None:
    """Give each failure in `failure` its reproducer without dead lines (`without_dead_lines`), in
    its note too, replaying for `budget_s` seconds in all."""
    deadline = time.monotonic() + budget_s
    for carrier in _carriers(failure):
        found = getattr(carrier, REPRODUCER)
        shorter = without_dead_lines(found, engine, deadline)
        if shorter is not found:
            setattr(carrier, REPRODUCER, shorter)
            carrier.__notes__ = [shorter.note if note == found.note else note
                                 for note in getattr(carrier, "__notes__", [])]


def without_dead_lines(reproducer: Reproducer, engine, deadline: float) -> Reproducer:
    """`reproducer` without the assignments whose names no later statement reads, which hypothesis
    leaves where its shrink budget ran out first (a slow engine). Evaluating one may still matter
    (an op in place, a hook's registration, an error), so they are dropped only as far as the
    script, replayed without them, still fails on `engine` with the same error in its last
    statement and still runs to its end on torch: all at once, else the last alone, until the
    monotonic clock reaches `deadline`. A script that starts threads is left as it is (one replay
    proves nothing), as is one that does not fail at its last line."""
    if reproducer.starts_threads or reproducer.line != reproducer.script.count("\n"):
        return reproducer
    kept, dropped, refused = _statements(reproducer.script), [], set()
    while time.monotonic() < deadline:
        dead = [statement for place, statement in enumerate(kept[:-1])
                if statement.assigns and statement not in refused
                and not any(statement.assigns in later.reads for later in kept[place + 1:])]
        if not dead:
            break
        for attempt in ([dead, dead[-1:]] if len(dead) > 1 else [dead]):
            shorter = _without(reproducer, dropped + attempt)
            if _fails_the_same(shorter, engine):
                kept = [statement for statement in kept if statement not in attempt]
                dropped += attempt
                break
        else:
            refused.add(dead[-1])
    return _without(reproducer, dropped) if dropped else reproducer


@dataclass(frozen=True)
class _Statement:
    """A top-level statement of a reproducer's script, after its header."""

    lines: range            # its lines in the script
    assigns: str | None     # the name it assigns, where it is `name = ...` alone on its lines
    reads: frozenset        # the names it reads


def _statements(script: str) -> list[_Statement]:
    """The top-level statements of `script` after its header, in order."""
    parsed = ast.parse(script).body
    found = []
    for statement in parsed:
        lines = range(statement.lineno, statement.end_lineno + 1)
        alone = sum(other.lineno in lines or other.end_lineno in lines for other in parsed) == 1
        target = statement.targets[0] if isinstance(statement, ast.Assign) else None
        named = isinstance(target, ast.Name) and len(statement.targets) == 1 and alone
        reads = {node.id for node in ast.walk(statement)
                 if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store)}
        reads |= {node.target.id for node in ast.walk(statement)   # `x += 1` reads x
                  if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name)}
        if statement.lineno > HEADER.count("\n"):
            found.append(_Statement(lines, target.id if named else None, frozenset(reads)))
    return found


def _without(reproducer: Reproducer, statements: list[_Statement]) -> Reproducer:
    gone = {number for statement in statements for number in statement.lines}
    script = "\n".join(line for number, line in enumerate(reproducer.script.split("\n"), 1)
                       if number not in gone)
    return dataclasses.replace(reproducer, script=script, line=script.count("\n"))


def _fails_the_same(reproducer: Reproducer, engine) -> bool:
    """Whether `reproducer`'s script fails on `engine` with its error, raised through its last
    statement, and runs to its end on torch; the engines' global state that each run leaves
    changed is put back, so that no run decides the next one's outcome."""
    last = ast.parse(reproducer.script).body[-1]
    failed = _run_put_back(reproducer.script, engine)
    if failed is None or failed[0] != reproducer.error or not failed[1] \
            or failed[1][0] not in range(last.lineno, last.end_lineno + 1):
        return False
    with engine.outside_context():
        return _run_put_back(reproducer.script, _torch()) is None


def _run_put_back(script: str, engine) -> tuple[str, list[int]] | None:
    try:
        return _run(script, engine)
    finally:
        put_back(changed(switches_of(engine), engine.ns), engine.ns)


@functools.cache
def _torch():
    """The torch engine, on which every reproducer runs to its end."""
    return load_engine("torch")
