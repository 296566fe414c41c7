"""A test needs the names it uses, not a whole capability (autograd_conformance/runner/needs.py):
on an engine that declares a test's capabilities, the test is skipped only if its adapter lacks a
name that test uses, as recorded in suites/names.toml; that file is current (re-recorded for one
suite, every test's key and needs collected), every name it records is listed in CONTRACT_NAMES
under a capability the test needs, and docs/adapter-contract.md names each under the same
capability. The file records the ops each test's own code applies too, each call of a spelling
of an op as the op it is."""

import json
import re
from types import SimpleNamespace

import pytest

from autograd_conformance import reference, suites
from autograd_conformance.harness.contract import CONTRACT_NAMES, lacking_names
from autograd_conformance.harness.engines import load_engine
from autograd_conformance.runner.needs import key_of, recorded_needs, skip_reason
from tests.support.run import ROOT, run_pytest
from tests.support.warm import clean_environment, run_python
from tools.names_recorder import applied_op
from tools.test_names import stored, unlisted

LACKING = "autograd.function.once_differentiable"
ADAPTER = "tests.broken.adapters.lacks_once_differentiable"
SUITE = "suites/test_custom_function.py"


def _uses(name: str, suite: str = SUITE) -> set[str]:
    return {key for key, test in recorded_needs().items()
            if key.startswith(f"{suite}::") and name in test.names}


def test_an_adapter_lacking_once_differentiable_runs_every_other_custom_function_test(tmp_path):
    """The Done-when of issue 32's third item: the reference engine without
    `once_differentiable`, declaring `custom_function`, runs every custom-Function test that does
    not use it (they pass), and exactly those that do are skipped with a reason naming it; FN-16,
    the behaviour of once_differentiable, is among them."""
    report = tmp_path / "lacks.html"
    run = run_pytest(SUITE, "--engine", ADAPTER, "-n", "2", f"--report={report}")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    tests = json.loads(report.with_suffix(".json").read_text())["tests"]
    outcomes = {key_of(test["nodeid"], "lacks-once-differentiable"): test for test in tests}
    skipped = {key: test["reason"] for key, test in outcomes.items()
               if test["outcome"] == "skipped"}
    using = _uses(LACKING)
    fn_16 = {f"suites/{file}::{name}" for file, name in suites.tests_by_behaviour()["FN-16"]}
    assert fn_16 and fn_16 <= using
    assert skipped == {key: f"engine 'lacks-once-differentiable' lacks {LACKING}"
                       for key in using}
    ran = {key: test["outcome"] for key, test in outcomes.items() if key not in skipped}
    assert len(ran) > 30 and set(ran.values()) == {"passed"}, ran


def test_a_test_is_skipped_for_the_names_it_uses_only():
    """Through the runner's own function: a test that uses the lacking name gets a reason that
    names it, one that does not gets none, and an engine that lacks nothing skips nothing."""
    lacking = load_engine(ADAPTER)
    [using, *_] = sorted(_uses(LACKING))
    other = next(key for key in sorted(_uses("autograd.Function")) if key not in _uses(LACKING))
    assert skip_reason(lacking, using) == f"engine 'lacks-once-differentiable' lacks {LACKING}"
    assert skip_reason(lacking, other) is None
    assert skip_reason(load_engine("reference"), using) is None


@pytest.mark.parametrize("nodeid, engine, key", [
    ("suites/test_x.py::test_y[reference]", "reference", "suites/test_x.py::test_y"),
    ("suites/test_x.py::test_y[reference-max]", "reference", "suites/test_x.py::test_y[max]"),
    ("suites/test_x.py::test_y[compiled-autograd-True-ReLU]", "compiled-autograd",
     "suites/test_x.py::test_y[True-ReLU]"),
    ("suites/test_x.py::test_y", "reference", "suites/test_x.py::test_y"),
])
def test_a_test_is_keyed_by_its_id_without_the_engine(nodeid, engine, key):
    assert key_of(nodeid, engine) == key


def test_every_recorded_name_is_listed_under_a_capability_the_test_needs():
    """Issue 33: every name a capability's tests use is listed under it in CONTRACT_NAMES (or
    under another capability the test needs); none is core's, and the reference has each where
    `lacking_names` looks, so that the runner can check it on any adapter."""
    used = sorted({name for test in recorded_needs().values() for name in test.names})
    assert used and lacking_names(reference, used) == []
    assert not set(used) & set(CONTRACT_NAMES["core"])
    assert unlisted(stored()) == {}


def test_a_keyword_is_lacking_where_the_function_does_not_take_it():
    """`autograd.grad(materialize_grads=)` is a name: an adapter whose `grad` does not take the
    keyword lacks it (its tests are skipped, naming it); one that takes `**kwargs`, or a builtin
    whose signature cannot be read, does not."""
    def grad(outputs, inputs, allow_unused=False):
        return None

    names = ["autograd.grad(allow_unused=)", "autograd.grad(materialize_grads=)"]
    assert lacking_names(SimpleNamespace(autograd=SimpleNamespace(grad=grad)), names) == \
        ["autograd.grad(materialize_grads=)"]
    for taking_any in (lambda *args, **kwargs: None, max):
        namespace = SimpleNamespace(autograd=SimpleNamespace(grad=taking_any))
        assert lacking_names(namespace, names) == []


def _documented() -> dict[str, set[str]]:
    """Capability -> the words in the code spans of its section (`### `name``) of
    docs/adapter-contract.md."""
    page = (ROOT / "docs" / "adapter-contract.md").read_text(encoding="utf-8")
    sections = re.finditer(r"^### `(\w+)`.*\n((?:(?!#).*\n)*)", page, re.MULTILINE)
    return {capability: {word for span in re.findall(r"`([^`]*)`", text)
                         for word in re.findall(r"\w+", span)}
            for capability, text in (section.groups() for section in sections)}


def test_the_contract_page_names_every_name_under_its_capability():
    """The prose an adapter's author reads lists what the runner checks: every name of
    CONTRACT_NAMES is written in its capability's section, as its last part (`once_differentiable`,
    `__setitem__`) or, for a keyword, the keyword (`materialize_grads`)."""
    documented = _documented()
    assert documented.keys() == CONTRACT_NAMES.keys()
    unwritten = {capability: [name for name in names
                              if re.split(r"[.(]", name.removesuffix("=)"))[-1]
                              not in documented[capability]]
                 for capability, names in CONTRACT_NAMES.items()}
    assert {capability: names for capability, names in unwritten.items() if names} == {}


def test_the_recorded_names_are_current():
    """`python -m tools.test_names --check SUITE` collects every suite test (its key and needs
    must be the file's) and re-records one suite's names on the reference engine (they must be
    the file's). The full re-recording, every suite, is run by hand (about 2.5 minutes)."""
    run = run_python(["-m", "tools.test_names", "--check", SUITE], cwd=ROOT,
                     env=clean_environment(), timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "names.toml is up to date" in run.stdout


def test_check_adapter_says_how_many_of_a_capability_s_tests_run():
    """A declared capability that lacks a name: `--check-adapter` says how many of its tests run
    and which lacking name keeps the others from running, and does not fail for it."""
    run = run_python(["-m", "autograd_conformance", "--check-adapter", "--engine", ADAPTER],
                     cwd=ROOT, env=clean_environment(), timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    tests = [key for key, test in recorded_needs().items() if "custom_function" in test.needs]
    using = [key for key in tests if LACKING in recorded_needs()[key].names]
    [line] = [line for line in run.stdout.splitlines() if line.startswith("  custom_function ")]
    assert line.endswith(f"declared     lacks {LACKING}; {len(tests) - len(using)} of {len(tests)} "
                         f"tests run; {len(using)} skipped for lacking {LACKING} ({len(using)})")


_VECTOR, _MATRIX = reference.ones(3), reference.ones(2, 3)


@pytest.mark.parametrize("spelling, args, kwargs, op", [
    ("exp", (_VECTOR,), {}, "exp"),                      # torch.exp(x), x.exp()
    ("__truediv__", (_VECTOR, 2.0), {}, "div"),          # x / 2
    ("__rtruediv__", (_VECTOR, 2.0), {}, "div"),         # 2 / x
    ("div_", (_VECTOR, 2.0), {}, "div"),                 # in place: the same node
    ("__itruediv__", (_VECTOR, 2.0), {}, "div"),         # x /= 2
    ("__pow__", (_VECTOR, 2), {}, "pow"),                # x ** 2
    ("pow", (_VECTOR, _VECTOR), {}, "pow_tensor"),       # torch.pow(x, y)
    ("__pow__", (_VECTOR, _VECTOR), {}, "pow_tensor"),   # x ** y
    ("__rpow__", (_VECTOR, 2.0), {}, "rpow"),            # 2.0 ** x
    ("pow", (2.0, _VECTOR), {}, "rpow"),                 # torch.pow(2.0, x)
    ("__matmul__", (_MATRIX, _MATRIX.transpose(0, 1)), {}, "matmul"),
    ("mm", (_MATRIX, _MATRIX.transpose(0, 1)), {}, "matmul"),
    ("__matmul__", (_MATRIX, _VECTOR), {}, "mv"),
    ("__rmatmul__", (_VECTOR, _MATRIX), {}, "mv"),       # reflected: matrix @ x
    ("__matmul__", (_VECTOR, _VECTOR), {}, "dot"),
    ("__getitem__", (_MATRIX, 0), {}, "index"),
    ("__getitem__", (_MATRIX, (slice(None), 1)), {}, "index"),
    ("__getitem__", (_MATRIX, [1, 0]), {}, "index_list"),
    ("max", (_MATRIX,), {}, "max"),
    ("max", (_MATRIX,), {"dim": 1}, "max_dim"),
    ("min", (_MATRIX, 0), {}, "min_dim"),
    ("mean", (_MATRIX,), {"dim": 0}, "mean"),
    ("t", (_MATRIX,), {}, None),                         # another function than transpose
    ("view", (_MATRIX, 6), {}, None),
    ("__setitem__", (_MATRIX, 0, 1.0), {}, None),        # index assignment is no indexing
])
def test_each_spelling_of_an_op_is_recorded_as_the_op_it_applies(spelling, args, kwargs, op):
    """How harness/ops.py writes each op decides which op a call is: `**` by whether the base and
    the exponent are tensors, `@` by the operands' dims, indexing by its key, max by its dim."""
    assert applied_op(spelling, args, kwargs) == op
