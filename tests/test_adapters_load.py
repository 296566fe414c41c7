"""The bundled adapters of other engines (mygrad, tinygrad, paddle, torch's compiled autograd)
load through the harness and run.

Each test is skipped, with the reason, when its engine is not installed (pip install mygrad==2.5.0
tinygrad==0.14.0 paddlepaddle==3.3.1; see docs/third-party-engines.md).
"""

from pathlib import Path

import numpy as np
import pytest

from autograd_conformance.harness.engines import load_engine
from autograd_conformance.harness.oracles import analytic_grads
from autograd_conformance.harness.program import Leaf, Node, Program
from autograd_conformance.harness.script import Script

# short name -> (the module it imports, the distribution that provides it)
ENGINES = {"mygrad": ("mygrad", "mygrad"), "tinygrad": ("tinygrad", "tinygrad"),
           "paddle": ("paddle", "paddlepaddle")}
# Engines without per-tensor requires_grad flags: backward() differentiates every float tensor.
WITHOUT_FLAGS = {"tinygrad"}
ADAPTERS = Path(__file__).resolve().parent.parent / "autograd_conformance" / "adapters"


def _engine(short_name):
    module, distribution = ENGINES[short_name]
    pytest.importorskip(module, reason=f"{distribution} is not installed "
                                      f"(see docs/third-party-engines.md)")
    return load_engine(short_name)


# x0 (2x2) and x1 (2,) require grad, x2 does not; every op of the op set once or more.
PROGRAM = Program(
    "float32",
    (Leaf("x0", np.array([[0.5, -1.0], [1.5, 2.0]]), True),
     Leaf("x1", np.array([0.75, -0.5]), True),
     Leaf("x2", np.array([[1.0, 2.0], [3.0, 0.5]]), False)),
    (Node("v3", "matmul", ("x0", "x2")), Node("v4", "add", ("v3", "x1")),
     Node("v5", "tanh", ("v4",)), Node("v6", "transpose", ("v5",)),
     Node("v7", "mul", ("v6", "x0")), Node("v8", "sigmoid", ("v7",)),
     Node("v9", "sum", ("v8",), 0), Node("v10", "pow", ("v9",), 2),
     Node("v11", "index", ("v10",), (0, 2)), Node("v12", "reshape", ("v11",), (1, 2)),
     Node("v13", "exp", ("v12",)), Node("v14", "mean", ("v13",), None)),
    "v14")


@pytest.mark.parametrize("short_name", sorted(ENGINES))
def test_adapter_loads_with_its_engine_version(short_name):
    from importlib.metadata import version
    engine = _engine(short_name)
    assert engine.name == short_name
    assert engine.version == version(ENGINES[short_name][1])
    assert {"core", "float64"} <= engine.capabilities


@pytest.mark.parametrize("short_name", sorted(ENGINES))
def test_adapter_runs_a_small_program(short_name):
    script = Script(_engine(short_name))
    script.build(PROGRAM)
    script.check_close("out", PROGRAM.evaluate()[PROGRAM.output], dtype="float32",
                       oracle="NumPy forward")
    script.run("out.backward()")
    expected = analytic_grads(PROGRAM)
    for leaf in PROGRAM.grad_leaves():
        script.check_close(f"{leaf.name}.grad", expected[leaf.name], dtype="float32",
                           oracle="analytic")
    if short_name in WITHOUT_FLAGS:
        constant = analytic_grads(PROGRAM.with_requires_grad({"x2": True}))["x2"]
        script.check_close("x2.grad", constant, dtype="float32",
                           oracle="analytic, for x2 made with requires_grad=False")
    else:
        script.check("x2.grad is None", "x2 does not require grad, but got .grad {x2.grad}")


@pytest.mark.parametrize("short_name", sorted(ENGINES))
def test_unsupported_requests_are_not_runtime_errors(short_name):
    """A torch feature the engine lacks must not raise RuntimeError: a test expecting torch's
    RuntimeError would then pass on the adapter's refusal instead of the engine's behaviour."""
    engine = _engine(short_name)
    ag = engine.ns
    assert not issubclass(ag.NotSupportedByEngine, RuntimeError)
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(ag.NotSupportedByEngine):
        (x * x).sum().backward(create_graph=True)


@pytest.mark.parametrize("short_name", sorted(ENGINES))
def test_adapter_stays_short(short_name):
    lines = (ADAPTERS / f"{short_name}_adapter.py").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"{short_name}_adapter.py has {len(lines)} lines"


def test_compiled_autograd_adapter_is_torch_under_its_own_name():
    import torch

    from autograd_conformance.adapters import torch_adapter
    engine = load_engine("compiled-autograd")
    assert (engine.name, engine.version) == ("compiled-autograd", torch.__version__)
    assert engine.capabilities == torch_adapter.capabilities
    assert engine.ns.tensor is torch.tensor


def test_compiled_autograd_runs_backward_and_grad_only_inside_its_context():
    """Each backward inside `engine.context()` is captured by compiled autograd (a new graph
    structure is a new capture); outside it, the same calls run on torch's eager engine."""
    import torch
    from torch._dynamo.utils import counters
    engine = load_engine("compiled-autograd")

    def captures_of(step):
        before = counters["compiled_autograd"]["captures"]
        step()
        return counters["compiled_autograd"]["captures"] - before

    x = torch.tensor([0.5, 1.5], requires_grad=True)
    backward = lambda: torch.cos(torch.sinh(x)).sum().backward()  # noqa: E731
    grad = lambda: torch.autograd.grad(torch.sinh(torch.cos(x)).sum(), [x])  # noqa: E731
    assert captures_of(backward) == captures_of(grad) == 0
    with engine.context():
        assert captures_of(backward) == captures_of(grad) == 1
        fresh = lambda: torch.exp(torch.tanh(x)).sum().backward()  # noqa: E731 - a new structure
        with engine.outside_context():  # where VAL-3 computes its eager torch oracle
            assert captures_of(fresh) == 0
        assert captures_of(fresh) == 1
    assert captures_of(backward) == 0


def test_harness_enters_the_engine_context_around_a_test():
    from types import SimpleNamespace

    from torch._dynamo import compiled_autograd

    from autograd_conformance.runner import plugin
    engine = load_engine("compiled-autograd")
    item = SimpleNamespace(callspec=SimpleNamespace(params={"engine": engine}))
    call = plugin.pytest_runtest_call(item)
    next(call)  # the wrapper now holds the context; pytest would run the test here
    assert compiled_autograd.compiled_autograd_enabled
    with pytest.raises(StopIteration):
        call.send(None)
    assert not compiled_autograd.compiled_autograd_enabled
