"""Every suite test that expects an error runs a positive control (issue 34, item 2): the same
program without the offending step, succeeding with the right values, in a `with script.control():`
block of its own (or of a helper it calls), or names with `@pytest.mark.control("test_name")` the
suite test that holds it. A refusal alone passes an engine that refuses too much.

The control's block checks at run time that it checked something (Script.control); this test
finds the blocks in the suites' source, so that no refusal goes without one."""

import ast
import importlib

import pytest

from autograd_conformance import suites
from autograd_conformance.harness.engines import load_engine
from autograd_conformance.harness.script import ControlWithoutCheck, Script

SUITES = sorted(suites.SUITES_DIR.glob("test_*.py"))


def _calls(node: ast.AST, method: str) -> bool:
    """Whether `node` is or holds a call of a method named `method` (`script.raises(...)`)."""
    return any(isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
               and inner.func.attr == method for inner in ast.walk(node))


def _runs_a_control(function: ast.FunctionDef) -> bool:
    """Whether `function` has a `with script.control():` block."""
    return any(isinstance(node, ast.With) and any(_calls(item.context_expr, "control")
                                                  for item in node.items)
               for node in ast.walk(function))


def _reached(function: ast.FunctionDef, functions: dict) -> list[ast.FunctionDef]:
    """`function` and the module's functions it calls, directly or through each other."""
    found, todo = [], [function]
    while todo:
        current = todo.pop()
        if current in found:
            continue
        found.append(current)
        todo += [functions[node.id] for node in ast.walk(current)
                 if isinstance(node, ast.Name) and node.id in functions]
    return found


def _tests_of(tree: ast.Module, marks: dict) -> list[tuple]:
    """(test name, whether it expects an error, whether it runs a control, the test its `control`
    marker names or None) for every test function of a module's `tree`; `marks`: the pytest marks
    of its functions, by name."""
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    found = []
    for name, function in functions.items():
        if name.startswith("test_"):
            reached = _reached(function, functions)
            named = [mark.args[0] for mark in marks.get(name, []) if mark.name == "control"]
            found.append((name, any(_calls(f, "raises") for f in reached),
                          any(_runs_a_control(f) for f in reached), named[0] if named else None))
    return found


def _suite_tests():
    """`_tests_of` every suite module, each test named `test_file.py::test_name`."""
    for path in SUITES:
        module = importlib.import_module(f"autograd_conformance.suites.{path.stem}")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        marks = {name: getattr(value, "pytestmark", []) for name, value in vars(module).items()}
        for name, *found in _tests_of(tree, marks):
            yield (f"{path.name}::{name}", *found)


def _uncontrolled(tests) -> list[str]:
    """The tests that expect an error with no control of their own and name none."""
    return [name for name, refuses, controlled, named in tests
            if refuses and not controlled and named is None]


TESTS = list(_suite_tests())


def test_every_refusal_has_a_positive_control():
    missing = _uncontrolled(TESTS)
    assert missing == [], (
        f"{len(missing)} suite tests expect an error without a positive control (a `with "
        f"script.control():` block, or @pytest.mark.control naming the test that holds it): "
        f"{missing}")


def test_a_named_control_is_a_suite_test_that_succeeds():
    """`@pytest.mark.control("test_file.py::test_name")` names a suite test that runs a control
    block or expects no error at all."""
    holds = {name: controlled or not refuses for name, refuses, controlled, _ in TESTS}
    wrong = {name: named for name, _, _, named in TESTS
             if named is not None and not holds.get(named, False)}
    assert wrong == {}, f"these tests name no suite test that holds a positive control: {wrong}"


def test_the_scan_finds_a_refusal_without_a_control():
    """A test that only expects an error is found, directly or through a helper; one that runs a
    control block, or whose helper does, or that names the test holding its control, is not."""
    refusal = ("def _refuse(script):\n"
               "    script.raises('out.backward()')\n"
               "def test_refuses(engine):\n"
               "    _refuse(Script(engine))\n")
    controlled = refusal.replace("    script.raises", "    with script.control():\n"
                                 "        script.check('True', 'ran')\n    script.raises")
    named = {"test_refuses": [pytest.mark.control("test_file.py::test_other").mark]}
    assert _uncontrolled(_tests_of(ast.parse(refusal), {})) == ["test_refuses"]
    assert _uncontrolled(_tests_of(ast.parse(controlled), {})) == []
    assert _uncontrolled(_tests_of(ast.parse(refusal), named)) == []


def test_a_control_that_checks_nothing_fails():
    script = Script(load_engine("torch"))
    with pytest.raises(ControlWithoutCheck), script.control():
        script.run("x = torch.ones(2, requires_grad=True)", "(x * 2).sum().backward()")
    with script.control():
        script.check_equal("x.grad.tolist()", [2.0, 2.0])
