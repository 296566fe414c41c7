"""Broken ops are judged once and set aside.

Before the tests run, each op of the random programs' op set gets a quick verdict of its own on
every engine under test (torch and the reference engine aside: they are the spec): applied alone
to fresh leaves over the generator's domain, its forward values and its vector-Jacobian product
must match the float64 oracle (harness/checks.py `assert_op_application`). An op that fails is
*set aside* on that engine: random programs no longer draw it (as if the adapter declared it in
`missing_ops`), and the tests that apply it on purpose are skipped with its error, except its own
gradient tests (OP-*, harness/ops.py GRADIENT_BEHAVIOURS), where it fails. So a broken `2.0 ** x`
fails OP-4 once and does not decide accumulation, retain_graph or hooks in every chapter; the
summary line, the report and the JSON results name the ops set aside, each with its smallest
failing call, and every test judged on programs drawn without them says so. `add`, `mul`, `neg`
and `sum` are never set aside (every program is built of them). `--no-set-aside` turns it off.

The verdicts are derandomized (the same examples in every run, whatever the profile or seed), so
that the same engine always has the same ops set aside, and run once, in the process that starts
the run, before any worker: every worker gets the same set (`pytest_configure_node`), whatever
the worker count. They run in a forked child where the platform can fork, each example under the
test time limit (and silent for twice that, the child is killed): an op that hangs or takes the
interpreter down is set aside with that as its error, and the run goes on.
"""

from __future__ import annotations

import dataclasses
import json
import os
import select
import signal
import warnings

import pytest
from hypothesis import HealthCheck, Phase, Verbosity, given, settings, strategies as st
from hypothesis.errors import HypothesisSideeffectWarning

from ..harness.checks import assert_op_application
from ..harness.contract import REQUIRED_OPS
from ..harness.engines import DEFAULT_ENGINES
from ..harness.ops import GRADIENT_BEHAVIOUR
from ..harness.script import Script, error_line, reproducers
from ..harness.strategies import (ALL_OPS, EXTREMA, JUDGED_WITHOUT, cotangents, engine_ops,
                                  op_applications)
from .plugin import ENGINES_KEY, behaviour_ids, item_engine, selected_engines
from .robustness import TimeLimit, shrink_budget

EXAMPLES = 25           # per op: enough to reach each dim pair, broadcast and dtype of the domain
SHRINK_SECONDS = 5.0    # per failing op: a small call, without holding up the run
_WORKER_KEY = "autograd_conformance_set_aside"      # workerinput: engine -> op -> verdict
SET_ASIDE = pytest.StashKey[dict]()                 # engine name -> op -> {"error", "script"}
_VERDICT_SETTINGS = settings(
    max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
    phases=(Phase.generate, Phase.shrink), verbosity=Verbosity.quiet,
    suppress_health_check=list(HealthCheck), report_multiple_bugs=False)


def judged(engine) -> bool:
    """Whether `engine`'s ops get verdicts: not torch's or the reference's own adapters."""
    return engine.spec not in DEFAULT_ENGINES


def verdict(engine, op: str, limit: TimeLimit, beat=lambda: None) -> dict | None:
    """None if `op` passes its verdict on `engine`; else {"error", "script"}: its smallest failing
    call as a torch script (None where it failed outside any script). `beat()` is called as each
    example starts."""
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
        if found:
            return {"error": found[0].error, "script": found[0].script}
        return {"error": error_line(failure), "script": None}
    return None


def verdicts(engine, seconds: float) -> dict[str, dict]:
    """op -> verdict, for each op that fails its own (see `verdict`), each example limited to
    `seconds` (0: no limit); a failure is shrunk for at most SHRINK_SECONDS."""
    ops = [op for op in engine_ops(engine, ALL_OPS + EXTREMA) if op not in REQUIRED_OPS]
    with TimeLimit(seconds) as limit, shrink_budget(SHRINK_SECONDS), warnings.catch_warnings():
        # hypothesis warns of strategies drawn while plugins start (it counts this as that): here
        # drawing them is the point
        warnings.simplefilter("ignore", HypothesisSideeffectWarning)
        if not hasattr(os, "fork"):
            return {op: found for op in ops if (found := verdict(engine, op, limit)) is not None}
        return _in_children(engine, ops, limit, 2 * seconds if seconds > 0 else None)


def _in_children(engine, ops: list[str], limit: TimeLimit, silence: float | None) -> dict:
    """Judge `ops` in a forked child that reports each op it starts, each example and each
    verdict. Where the child dies in an op, or is silent for `silence` seconds (stuck where the
    time limit's signal cannot reach: the hard limit), that op is set aside as such, and a new
    child judges the rest."""
    failed: dict[str, dict] = {}
    remaining = list(ops)
    while remaining:
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            _child(engine, remaining, limit, write_end)
        os.close(write_end)
        running, silent = _follow(read_end, remaining, failed, silence)
        if silent:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        if running is None:
            break   # the child ended between ops: nothing more to learn from it
        remaining.remove(running)
        failed[running] = {"script": None, "error": (
            f"judging {running} stopped responding: nothing for {silence:g} s (twice "
            f"--test-timeout)" if silent else
            f"judging {running} took the process down ({_death(status)})")}
    return failed


def _follow(read_end: int, remaining: list[str], failed: dict, silence: float | None):
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


def _child(engine, ops: list[str], limit: TimeLimit, write_end: int) -> None:
    """In the forked child: judge each op, write what happens, and never return to pytest."""
    status = 0
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        with os.fdopen(write_end, "w", encoding="utf-8") as out:
            def say(**message):
                out.write(json.dumps(message) + "\n")
                out.flush()

            for op in ops:
                say(op=op, started=True)
                say(op=op, verdict=verdict(engine, op, limit, beat=lambda: say(beat=True)))
    except BaseException:   # noqa: BLE001 - whatever happens, the child must not go on as pytest
        status = 1
    finally:
        os._exit(status)


def _death(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit status {os.WEXITSTATUS(status)}"


# -- the run ---------------------------------------------------------------------------------------
@pytest.hookimpl(trylast=True)   # after the engines are loaded and the time limits are set
def pytest_configure(config):
    """In the process that starts the run: judge each engine's ops; in a worker: take the
    verdicts the controller sent. Either way, the engines of the run carry their set-aside ops."""
    worker_input = getattr(config, "workerinput", None)
    if worker_input is not None:
        set_aside = worker_input.get(_WORKER_KEY, {})
    elif config.getoption("no_set_aside") or config.getoption("collectonly"):
        set_aside = {}
    else:
        seconds = config.getoption("test_timeout")
        set_aside = {engine.name: verdicts(engine, seconds)
                     for engine in selected_engines(config) if judged(engine)}
        config.pluginmanager.register(_SendToWorkers(set_aside), "autograd-op-verdicts")
    config.stash[SET_ASIDE] = {name: ops for name, ops in set_aside.items() if ops}
    config.stash[ENGINES_KEY] = [
        dataclasses.replace(engine, set_aside_ops=frozenset(set_aside.get(engine.name, ())))
        for engine in selected_engines(config)]


class _SendToWorkers:
    def __init__(self, set_aside: dict):
        self.set_aside = set_aside

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node):
        node.workerinput[_WORKER_KEY] = self.set_aside


def set_aside_ops(config) -> dict[str, dict[str, dict]]:
    """Engine name -> op -> its verdict {"error", "script"}, for the engines with ops set aside."""
    return config.stash.get(SET_ASIDE, {})


def pytest_report_header(config):
    return [f"{name}: ops set aside (each failed its own verdict; the other behaviours are "
            f"judged without it): " + "; ".join(f"{op} ({found['error']})"
                                                 for op, found in ops.items())
            for name, ops in set_aside_ops(config).items()]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """A test that applies a set-aside op on purpose (`op` mark) is skipped with its error, unless
    it judges that op's own gradients."""
    for item in items:
        engine = item_engine(item)
        if engine is None or not engine.set_aside_ops:
            continue
        aside = [op for mark in item.iter_markers("op") for op in mark.args
                 if op in engine.set_aside_ops
                 and GRADIENT_BEHAVIOUR.get(op) not in behaviour_ids(item)]
        if aside:
            errors = set_aside_ops(config).get(engine.name, {})
            item.add_marker(pytest.mark.skip(reason="; ".join(
                f"op {op} set aside on engine {engine.name!r}: it failed its own verdict "
                f"({errors.get(op, {}).get('error', '')})" for op in aside)))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Note, as the test's property `judged_without`, the set-aside ops its random programs and
    view chains were drawn without."""
    engine = item_engine(item)
    if engine is None or not engine.set_aside_ops:
        return (yield)
    JUDGED_WITHOUT.clear()
    try:
        return (yield)
    finally:
        if JUDGED_WITHOUT:
            item.user_properties.append(("judged_without", " ".join(sorted(JUDGED_WITHOUT))))
