"""Bad engine specs stop the run at start with one readable line; capabilities skip with reasons."""

import json
import subprocess
import sys
import types

import pytest

from autograd_conformance import reference
from autograd_conformance.harness.engines import EngineLoadError, load_engine
from tests.support.run import run_pytest
from tests.support.warm import clean_environment


def _error_lines(result):
    return [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]


@pytest.mark.parametrize("spec, expected", [
    ("no_such_engine", "unknown engine 'no_such_engine'"),
    ("math", "engine 'math' lacks the core tensor API"),
    ("tests.broken.adapters.raises_on_import", "failed to import: ImportError: libfancygrad.so"),
    ("autograd_conformance.adapters.torch_adapter:nope", "has no attribute 'nope'"),
    ("tests.broken.adapters.unknown_capability", "declares unknown capabilities ['hookz']"),
])
def test_bad_engine_spec_gives_one_line(spec, expected):
    result = run_pytest("--engine", spec)
    lines = _error_lines(result)
    assert result.returncode == 4, (result.returncode, lines)
    assert len(lines) == 1, f"expected one line, got {lines}"
    assert expected in lines[0] and lines[0].startswith("ERROR: ")
    if "unknown engine" in expected or "lacks" in expected:
        assert "valid short names: torch, reference" in lines[0]


def test_engine_without_requires_grad_flags_is_run_not_refused():
    """An engine whose factories refuse `requires_grad=` still gets a run: the tests that pass the
    keyword fail with the engine's error, the others pass (docs/adapter-contract.md)."""
    result = run_pytest("suites/test_requires_grad.py", "--behaviour", "REQ-1",
                        "--engine", "tests.broken.adapters.no_requires_grad")
    assert result.returncode == 1, (result.returncode, result.stdout[-3000:], result.stderr[-2000:])
    assert "unexpected keyword argument 'requires_grad'" in result.stdout
    summary = result.stdout.splitlines()[-1]
    assert "1 failed" in summary and "1 passed" in summary, summary


def test_environment_variable_selects_engines():
    result = run_pytest("--collect-only", "-q", "suites/test_leaves.py",
                        env={"AUTOGRAD_ENGINE": "torch,tests.broken.adapters.core_only"})
    assert "test_created_tensors_are_leaves[core-only]" in result.stdout
    assert "test_created_tensors_are_leaves[reference]" not in result.stdout
    result = run_pytest(env={"AUTOGRAD_ENGINE": "torch, no_such_engine"})
    assert result.returncode == 4 and "unknown engine 'no_such_engine'" in result.stderr


def test_missing_capability_skips_with_its_name():
    result = run_pytest("suites/test_modules.py", "--engine", "tests.broken.adapters.core_only", "-rs")
    assert result.returncode == 0, result.stdout[-3000:]
    assert "does not declare capability 'nn'" in result.stdout
    assert " passed" not in result.stdout.splitlines()[-1], "module tests ran without 'nn'"


def test_engine_is_part_of_the_test_id():
    result = run_pytest("suites/test_leaves.py", "--engine", "torch",
                        "--engine", "tests.broken.adapters.core_only", "--collect-only", "-q")
    assert "test_created_tensors_are_leaves[torch]" in result.stdout
    assert "test_created_tensors_are_leaves[core-only]" in result.stdout


def test_ops_an_adapter_declares_missing_are_never_drawn_and_their_tests_skip(tmp_path):
    """tests/broken/adapters/lacks_ops.py lacks mean, abs, clone and tensor exponents (each
    raises where used) and says so in `missing_ops`: the random programs never use them, the
    tests of those ops are skipped naming the op, and a test whose fixed program uses one fails
    as what it is, the engine raising outside any check, not as a failed check."""
    report = tmp_path / "lacks.html"
    run = run_pytest("suites/test_op_grads.py", "suites/test_leaves.py", "suites/test_reuse.py",
                     "--engine", "tests.broken.adapters.lacks_ops", "-n", "2",
                     f"--report={report}")
    results = json.loads(report.with_suffix(".json").read_text())
    assert results["run"]["engines"][0]["missing_ops"] == ["abs", "clone", "mean", "pow_tensor"]
    assert "lacks ops abs, clone, mean, pow_tensor" in run.stdout
    tests = results["tests"]
    skipped = {test["nodeid"].split("::")[1]: test["reason"] for test in tests
               if test["outcome"] == "skipped"}
    for op in ("abs", "clone", "mean", "pow_tensor"):
        assert any(f"-{op}]" in test and reason.endswith(f"lacks op {op} (its adapter's "
                                                          f"missing_ops)")
                   for test, reason in skipped.items()), op
    failed = {test["nodeid"].split("::")[1]: test for test in tests if test["outcome"] == "failed"}
    # The second: the engine's own backward clones a retained gradient under create_graph, and
    # this engine's clone raises: a missing op fails the programs whose backward needs it too.
    assert sorted(failed) == ["test_backward_inputs_stores_outputs_of_one_node_latest_named_first"
                              "[lacks-ops]", "test_seed_mean_of_squares[lacks-ops]"]
    assert "NotSupportedByEngine: no clone" in failed[
        "test_backward_inputs_stores_outputs_of_one_node_latest_named_first[lacks-ops]"]["error"]
    [found] = failed["test_seed_mean_of_squares[lacks-ops]"]["reproducers"]
    assert not found["check"] and found["error"] == "NotSupportedByEngine: no mean"
    assert ".mean()" in found["script"].splitlines()[found["line"] - 1]
    assert results["behaviours"]["LEAF-5"]["lacks-ops"] == "error"


def test_missing_ops_must_name_ops_of_the_op_set_and_not_the_required_ones(monkeypatch):
    module = types.ModuleType("lacking_adapter")   # the reference engine under another name
    module.__getattr__ = lambda attribute: getattr(reference, attribute)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    module.missing_ops = {"cosh"}
    with pytest.raises(EngineLoadError, match=r"not in the op set: \['cosh'\]"):
        load_engine(module.__name__)
    module.missing_ops = {"sum", "mean"}
    with pytest.raises(EngineLoadError, match=r"declares missing \['sum'\]"):
        load_engine(module.__name__)
    module.missing_ops = {"mean"}
    assert load_engine(module.__name__).missing_ops == {"mean"}


def _command(directory, *args):
    """The `autograd-conformance` command as its console script runs it: without the working
    directory on sys.path (python -P), from `directory`."""
    return subprocess.run([sys.executable, "-P", "-c",
                           "import sys; from autograd_conformance.cli import main; "
                           f"sys.exit(main({list(args)!r}))"],
                          cwd=directory, capture_output=True, text=True, timeout=600,
                          env=clean_environment())


def test_the_command_imports_an_adapter_from_the_working_directory(tmp_path):
    (tmp_path / "my_adapter.py").write_text(
        "from autograd_conformance.reference import *  # noqa\n"
        "from autograd_conformance import reference\n"
        "name = 'mine'\ncapabilities = reference.capabilities\nto_numpy = reference.to_numpy\n"
        "def __getattr__(attribute):\n    return getattr(reference, attribute)\n")
    run = _command(tmp_path, "--engine", "my_adapter", "--behaviour", "LEAF-1", "-n", "0",
                   "--hypothesis-profile", "ci", "--no-report", "-p", "no:cacheprovider")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "mine: 1/1 behaviours pass" in run.stdout


def test_help_starts_with_the_suites_usage_and_options(tmp_path):
    run = _command(tmp_path, "--help")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("usage: autograd-conformance [--engine SPEC ...]")
    ours = run.stdout.index("autograd-conformance options:")
    assert ours < run.stdout.index("--check-adapter  ") < run.stdout.index("usage: ", 10)
    for option in ("--engine SPEC", "--baseline FILE", "--test-timeout SECONDS", "--level"):
        assert run.stdout.index(option, ours) < run.stdout.index("usage: ", 10), option
    assert "cannot be rewritten" not in run.stdout   # nothing imported early spoils pytest


def test_check_adapter_lists_per_capability_what_the_adapter_has_in_seconds(tmp_path):
    run = _command(tmp_path, "--check-adapter", "--engine", "mygrad",
                   "--engine", "tests.broken.adapters.no_requires_grad", "--engine", "nope")
    lines = run.stdout.splitlines()
    assert run.returncode == 1   # an engine that does not load
    assert lines[0] == "mygrad 2.5.0 (mygrad)"
    assert ("  core                     declared     lacks Tensor.retains_grad  <- declared but "
            "incomplete: core's tests fail without them") in lines   # mygrad keeps every gradient
    assert any(line.startswith("  float64                  declared     has all 1 name; ")
               and " tests run" in line for line in lines)
    assert any(line.startswith("  hooks                    not declared lacks "
                               "Tensor.register_hook") for line in lines)
    assert any(line.startswith("nope: does not load: unknown engine 'nope'") for line in lines)
