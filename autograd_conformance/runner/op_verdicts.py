"""Broken ops are judged once and set aside.

Before an engine's first test, each op of the random programs' op set gets a quick verdict of its
own on it (torch and the reference engine aside: they are the spec): applied alone to fresh
leaves over the generator's domain, its forward values and its vector-Jacobian product must match
the float64 oracle (harness/checks.py `assert_op_application`). An op that fails is *set aside*
on that engine: random programs and view chains no longer draw it (as if the adapter declared it
in `missing_ops`), and the tests that apply it on purpose are skipped with its error, except its
own gradient tests (OP-*, harness/ops.py GRADIENT_BEHAVIOURS), where it fails. A test that applies
it itself (its own code, as suites/names.toml records it, or a program node it writes: strategies
never draw one) still runs; if it fails, the op may be why, so the report judges none of its
behaviours (`uses_set_aside`, reports/results.py), while the test still fails. So a broken
`2.0 ** x` fails OP-4 once and does not decide accumulation, retain_graph or hooks in every
chapter; the summary line, the report and the JSON results name the ops set aside, each with its
smallest failing call, and every test judged on programs drawn without them says so.
`--no-set-aside` turns it off.

`add`, `mul`, `neg` and `sum` are never set aside (every program is built of them): they are
judged first, as controls. Where one of them hangs or takes the process down, or all of them fail,
the engine's backward itself is at fault, not one op: nothing is set aside, and no more time is
spent (an engine that hangs in every backward costs one verdict time limit, not one per op).

The verdicts are derandomized (the same examples in every run, whatever the profile or seed) and
made once per run: by the first process that runs one of the engine's tests, while any other
waits for them (a lock in the run's shared directory, runner/watchdog.py), so the same engine
always has the same ops set aside, whatever the worker count. They run in a forked child where the
platform can fork, each example under VERDICT_SECONDS (the test time limit where that is lower;
silent for twice that, the child is killed): an op that hangs or takes the interpreter down is set
aside with that as its error, and the run goes on. They run in a test's setup, so an interruption
(Ctrl-C) still leaves a report.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisSideeffectWarning

from ..harness.checks import assert_op_application
from ..harness.contract import REQUIRED_OPS
from ..harness.engines import DEFAULT_ENGINES
from ..harness.ops import GRADIENT_BEHAVIOUR, RENDERED
from ..harness.script import Script, error_line, reproducers
from ..harness.strategies import ALL_OPS, EXTREMA, JUDGED_WITHOUT, cotangents, engine_ops, op_applications
from . import evidence
from .needs import key_of, recorded_ops
from .plugin import behaviour_ids, item_engine, suite_nodeid
from .robustness import TimeLimit, TimeLimitExceeded, shrink_budget
from .watchdog import shared_directory

EXAMPLES = 25           # per op: enough to reach each dim pair, broadcast and dtype of the domain
SHRINK_SECONDS = 5.0    # per failing op: a small call, without holding up the run
VERDICT_SECONDS = 10.0  # per example of one op on a few elements: far more than any engine needs
_VERDICT_SETTINGS = settings(
    max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
    phases=(Phase.generate, Phase.shrink), verbosity=Verbosity.quiet,
    suppress_health_check=list(HealthCheck), report_multiple_bugs=False)


def judged(engine) -> bool:
    """Whether `engine`'s ops get verdicts: not torch's or the reference's own adapters."""
    return engine.spec not in DEFAULT_ENGINES


# -- one op ----------------------------------------------------------------------------------------
def verdict(engine, op: str, limit: TimeLimit, beat=lambda: None) -> dict | None:
    """None if `op` passes its verdict on `engine`; else {"error", "script", "fault"}: its
    smallest failing call as a torch script (None where it failed outside any script), and
    whether it hung rather than failed. `beat()` is called as each example starts."""
    @_VERDICT_SETTINGS
    @given(data=st.data())
    def apply_once(data):
        beat()
        with limit.example():
            program = data.draw(op_applications(engine, op), label="program")
            v = data.draw(cotangents(program.output_shape(), program.dtype), label="gradient")
            assert_op_application(Script(engine), program, v, forward=True)

    try:
        with engine.context():
            apply_once()
    except BaseException as failure:   # noqa: BLE001 - the time limit is a BaseException too
        if isinstance(failure, KeyboardInterrupt):
            raise
        found = reproducers(failure)
        return {"error": found[0].error if found else error_line(failure),
                "script": found[0].script if found else None,
                "fault": isinstance(failure, TimeLimitExceeded)}
    return None


# -- every op of an engine -------------------------------------------------------------------------
def verdicts(engine, seconds: float) -> dict:
    """{"set_aside": op -> its failed verdict, "not_judged": why none was judged, or ""}, each
    example limited to `seconds` (0: VERDICT_SECONDS), a failure shrunk for SHRINK_SECONDS."""
    seconds = min(seconds, VERDICT_SECONDS) if seconds > 0 else VERDICT_SECONDS
    others = [op for op in engine_ops(engine, ALL_OPS + EXTREMA) if op not in REQUIRED_OPS]
    with TimeLimit(seconds) as limit, shrink_budget(SHRINK_SECONDS), warnings.catch_warnings():
        # hypothesis warns of strategies drawn in a test's setup: here drawing them is the point
        warnings.simplefilter("ignore", HypothesisSideeffectWarning)
        controls = _judge(engine, list(REQUIRED_OPS), limit, 2 * seconds, stop_at_fault=True)
        fault = next((op for op, found in controls.items() if found["fault"]), None)
        if fault is not None or len(controls) == len(REQUIRED_OPS):
            op = fault or REQUIRED_OPS[0]
            return {"set_aside": {}, "not_judged": (
                f"{op}'s own verdict failed too ({controls[op]['error']}): the engine's backward "
                f"itself is at fault, not one op")}
        return {"set_aside": _judge(engine, others, limit, 2 * seconds), "not_judged": ""}


def _judge(engine, ops: list[str], limit: TimeLimit, silence: float, *,
           stop_at_fault: bool = False) -> dict[str, dict]:
    """op -> failed verdict, for those of `ops` that fail; with `stop_at_fault`, none is judged
    after one that hangs or takes the process down."""
    if not hasattr(os, "fork"):
        failed = {}
        for op in ops:
            found = verdict(engine, op, limit)
            if found is not None:
                failed[op] = found
                if stop_at_fault and found["fault"]:
                    break
        return failed
    return _in_children(engine, ops, limit, silence, stop_at_fault)


def _in_children(engine, ops: list[str], limit: TimeLimit, silence: float,
                 stop_at_fault: bool) -> dict[str, dict]:
    """Judge `ops` in a forked child that reports each op it starts, each example and each
    verdict. Where the child dies in an op, or is silent for `silence` seconds (stuck where the
    time limit's signal cannot reach: the hard limit), that op fails with that as its error, and
    a new child judges the rest."""
    failed: dict[str, dict] = {}
    remaining = list(ops)
    while remaining:
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            _child(engine, remaining, limit, write_end, stop_at_fault)
        os.close(write_end)
        running, silent = _follow(read_end, remaining, failed, silence)
        if silent:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        if running is None:
            break   # the child ended between ops (all judged, or stopped at a fault)
        remaining.remove(running)
        failed[running] = {"script": None, "fault": True, "error": (
            f"judging {running} stopped responding: nothing for {silence:g} s" if silent else
            f"judging {running} took the process down ({_death(status)})")}
        if stop_at_fault:
            break
    return failed


def _follow(read_end: int, remaining: list[str], failed: dict, silence: float):
    """Read the child's messages until it closes the pipe, or says nothing for `silence` seconds;
    each verdict moves its op out of `remaining` (into `failed` if it failed). Returns the op the
    child was judging when it stopped (None between ops) and whether it fell silent."""
    running, pending = None, b""
    try:
        while True:
            if not select.select([read_end], [], [], silence)[0]:
                return running, True
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                return running, False
            *lines, pending = (pending + chunk).split(b"\n")
            for message in map(json.loads, lines):
                if "started" in message:
                    running = message["op"]
                elif "verdict" in message:
                    running = None
                    remaining.remove(message["op"])
                    if message["verdict"] is not None:
                        failed[message["op"]] = message["verdict"]
    finally:
        os.close(read_end)


def _child(engine, ops: list[str], limit: TimeLimit, write_end: int, stop_at_fault: bool) -> None:
    """In the forked child: judge each op, write what happens, and never return to pytest."""
    status = 0
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)   # Ctrl-C ends the child; the run sees it
        with os.fdopen(write_end, "w", encoding="utf-8") as out:
            def say(**message):
                out.write(json.dumps(message) + "\n")
                out.flush()

            for op in ops:
                say(op=op, started=True)
                found = verdict(engine, op, limit, beat=lambda: say(beat=True))
                say(op=op, verdict=found)
                if stop_at_fault and found is not None and found["fault"]:
                    break
    except BaseException:   # noqa: BLE001 - whatever happens, the child must not go on as pytest
        status = 1
    finally:
        os._exit(status)


def _death(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit status {os.WEXITSTATUS(status)}"


# -- once per run ----------------------------------------------------------------------------------
def _file(directory: Path, engine_name: str, suffix: str) -> Path:
    safe = re.sub(r"[^\w.-]", "_", engine_name)
    return directory / f"op-verdicts-{safe}.{suffix}"


def made_once(directory: Path | None, engine, seconds: float) -> dict:
    """The engine's verdicts (see `verdicts`), made by the first process of the run that asks and
    read back by the others, which wait for them; without a shared directory, made here."""
    if directory is None:
        return verdicts(engine, seconds)
    try:
        import fcntl
    except ImportError:     # no fork either (Windows): each process judges on its own
        return verdicts(engine, seconds)
    made = _file(directory, engine.name, "json")
    with open(_file(directory, engine.name, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not made.exists():
            made.write_text(json.dumps({"engine": engine.name, **verdicts(engine, seconds)}),
                            encoding="utf-8")
        return json.loads(made.read_text(encoding="utf-8"))


def made_verdicts(config) -> dict[str, dict]:
    """Engine name -> its verdicts, for the engines this run judged (read on the controller, for
    the report)."""
    directory = shared_directory(config)
    if directory is None:
        return {}
    found = (json.loads(path.read_text(encoding="utf-8"))
             for path in sorted(directory.glob("op-verdicts-*.json")))
    return {data.pop("engine"): data for data in found}


_MADE: set[str] = set()     # the engines whose verdicts this process holds


def pytest_runtest_setup(item):
    """Before an engine's first test here, take its verdicts (see `made_once`); skip a test that
    applies a set-aside op on purpose (`op` mark), with its error, unless it judges that op's own
    gradients."""
    engine = item_engine(item)
    config = item.config
    if engine is None or not judged(engine) or config.getoption("no_set_aside"):
        return
    if engine.name not in _MADE:
        _MADE.add(engine.name)
        engine.set_aside.update(made_once(shared_directory(config), engine,
                                          config.getoption("test_timeout"))["set_aside"])
    aside = _set_aside(item, engine, [op for mark in item.iter_markers("op") for op in mark.args])
    if aside:
        pytest.skip("; ".join(f"op {op} set aside on engine {engine.name!r}: it failed its own "
                              f"verdict ({engine.set_aside[op]['error']})" for op in aside))


def _set_aside(item, engine, ops) -> list[str]:
    """Those of `ops` set aside on `engine`, less those whose own gradients `item` judges."""
    behaviours = behaviour_ids(item)
    return [op for op in ops
            if op in engine.set_aside and GRADIENT_BEHAVIOUR.get(op) not in behaviours]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Note, as the test's properties, the set-aside ops its random programs and view chains were
    drawn without (`judged_without`), and those it applied itself (`uses_set_aside`): in its own
    code, as recorded, or in a program node it wrote (RENDERED)."""
    engine = item_engine(item)
    if engine is None:
        return (yield)
    JUDGED_WITHOUT.clear()
    RENDERED.clear()
    try:
        return (yield)
    finally:
        if JUDGED_WITHOUT:
            item.user_properties.append((evidence.JUDGED_WITHOUT, " ".join(sorted(JUDGED_WITHOUT))))
        key = key_of(suite_nodeid(item.config, item), engine.name)
        used = _set_aside(item, engine, sorted({*recorded_ops(key), *RENDERED}))
        if used:
            item.user_properties.append((evidence.USES_SET_ASIDE, " ".join(used)))
