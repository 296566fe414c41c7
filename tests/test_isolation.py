"""Isolated verdicts: every conformance test starts from a clean engine and is charged with the
global state it leaves (autograd_conformance/harness/engine_state.py, runner/isolation.py), so
that one engine bug that leaves grad mode off fails the tests that provoke it and no other,
whatever the worker count."""

import json

import pytest

from autograd_conformance import reference
from autograd_conformance.harness.engine_state import SWITCHES, changed, put_back, switches_of
from autograd_conformance.harness.engines import load_engine
from autograd_conformance.harness.script import Script, replay, reproducers
from autograd_conformance.runner.isolation import charged
from autograd_conformance.runner.plugin import LAST_SCRIPT
from tests.support.run import run_pytest

# How a script leaves each switch changed, with the contract's names (the context objects are kept
# in the scope: torch's inference_mode guard puts the mode back when it is collected).
LEAVE = {
    "inference mode": "held = torch.inference_mode()\nheld.__enter__()",
    "grad mode": "torch.set_grad_enabled(False)",
    "anomaly mode": "torch.autograd.set_detect_anomaly(True)",
    "dual level": "held = torch.autograd.forward_ad.dual_level()\nheld.__enter__()",
    "saved-tensor hooks": "held = torch.autograd.graph.saved_tensors_hooks(lambda t: t,\n"
                          "                                               lambda t: t)\n"
                          "held.__enter__()",
    "default dtype": "torch.set_default_dtype(torch.float64)",
}


@pytest.fixture(scope="module", params=["torch", "reference"])
def engine(request):
    return load_engine(request.param)


def test_every_switch_is_read_on_torch_and_each_declared_one_on_the_reference():
    assert {s.what for s in switches_of(load_engine("torch"))} == set(LEAVE) == \
        {s.what for s in SWITCHES}
    # the reference has no default dtype to set: every other switch is read
    assert {s.what for s in switches_of(load_engine("reference"))} == set(LEAVE) - {"default dtype"}


@pytest.mark.parametrize("what", LEAVE)
def test_a_switch_left_changed_is_found_alone_and_put_back(engine, what):
    switches = switches_of(engine)
    if what not in {s.what for s in switches}:
        pytest.skip(f"{engine.name} has no {what} to read")
    assert changed(switches, engine.ns) == []
    scope = {"torch": engine.ns}
    exec(LEAVE[what], scope)
    left = changed(switches, engine.ns)
    try:
        assert [s.what for s in left] == [what] or (
            what == "inference mode" and [s.what for s in left] == ["inference mode", "grad mode"])
    finally:
        assert put_back(left, engine.ns) == []
    assert changed(switches, engine.ns) == []
    x = engine.ns.ones(2, requires_grad=True)
    assert (x * 2).requires_grad and not (x * 2).is_inference()


class _DecoratorThatLeaks(reference.grad_mode.set_grad_enabled):
    """Decorating returns the function as it is: the call before it switched the mode, and nothing
    switches it back (no error, so only the state shows it)."""

    def __call__(self, func):
        return func


class _LeakyNamespace:
    set_grad_enabled = _DecoratorThatLeaks

    def __getattr__(self, name):
        return getattr(reference, name)


def test_a_leak_fails_the_example_with_a_check_whose_reproducer_runs_clean_under_torch():
    import dataclasses
    engine = dataclasses.replace(load_engine("reference"), name="leaky", ns=_LeakyNamespace())
    item = type("Item", (), {"stash": pytest.Stash()})()
    with pytest.raises(AssertionError, match="the test left grad mode off") as caught:
        with charged(item, engine, switches_of(engine)):
            script = Script(engine)
            item.stash[LAST_SCRIPT] = script
            script.run("@torch.set_grad_enabled(False)", "def double(t):", "    return t * 2",
                       "y = double(torch.ones(2, requires_grad=True))")
    assert reference.is_grad_enabled(), "the mode was not put back"
    [found] = reproducers(caught.value)
    assert found.check and found.script.rstrip().splitlines()[-1].startswith("assert clean")
    assert replay(found, load_engine("torch")) is None   # torch's decorator leaves no trace
    assert replay(found, engine) is not None
    reference.set_grad_enabled(True)


def _failing_tests(workers: str, tmp_path) -> dict[str, list[str]]:
    out = tmp_path / f"n{workers}.json"
    run = run_pytest("suites/test_grad_mode.py", "suites/test_leaves.py", "--engine",
                     "tests.broken.adapters.leaky_grad_mode_decorator", "-n", workers,
                     "--no-report", f"--json-report={out}")
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    tests = json.loads(out.read_text())["tests"]
    assert any(test["outcome"] == "passed" for test in tests)
    return {test["nodeid"]: [found["script"] for found in test["reproducers"]]
            for test in tests if test["outcome"] == "failed"}


def test_a_decorator_that_leaves_grad_mode_off_fails_only_the_tests_that_use_it(tmp_path):
    """The same failing tests under -n 0, -n 1 and -n 2, each of them using the decorator in its
    reproducer; the tests after them (all of test_leaves.py, which never decorates) pass."""
    runs = {workers: _failing_tests(workers, tmp_path) for workers in ("0", "1", "2")}
    assert runs["0"] and runs["0"].keys() == runs["1"].keys() == runs["2"].keys(), runs
    for nodeid, scripts in runs["0"].items():
        assert nodeid.startswith("suites/test_grad_mode.py::"), nodeid
        assert scripts and all("@torch.set_grad_enabled(" in s for s in scripts), nodeid
