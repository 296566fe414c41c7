"""Bad engine specs stop the run at start with one readable line; capabilities skip with reasons."""

import pytest

from tests.support.run import run_pytest


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
