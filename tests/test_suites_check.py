"""Every test under suites/ checks what it drew: none ends early with a bare `return` (issue 15).

A test that returns for some draws passes them unchecked, and where the condition is the engine's
own answer, an engine that gets exactly that wrong passes. Tests draw what they need instead
(`programs(..., candidates=...)`).
"""

import ast

from autograd_conformance.suites import SUITES_DIR

SUITES = sorted(SUITES_DIR.glob("test_*.py"))
# A state machine's rules return when the model's state offers nothing to do: hypothesis then
# picks the next rule, and the invariant checks the whole state after every step.
STATE_MACHINES = {("test_sequences.py", "AutogradSequence")}


def _early_returns(function: ast.FunctionDef) -> list[int]:
    """Line numbers of `return` / `return None` in `function`'s own body (nested functions and
    classes, which return to their caller, are not searched)."""
    lines, stack = [], list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Return) and (
                node.value is None or isinstance(node.value, ast.Constant)
                and node.value.value is None):
            lines.append(node.lineno)
        stack.extend(ast.iter_child_nodes(node))
    return sorted(lines)


def _tests(tree: ast.Module, filename: str):
    """(qualified name, function) for the module's test functions and its classes' methods."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef) and (filename, node.name) not in STATE_MACHINES:
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    yield f"{node.name}.{item.name}", item


def test_no_suite_test_returns_early():
    found = {}
    for path in SUITES:
        for name, function in _tests(ast.parse(path.read_text()), path.name):
            if lines := _early_returns(function):
                found[f"{path.name}::{name}"] = lines
    assert not found, f"tests that return early (draw what they need instead): {found}"


def test_the_excluded_state_machines_exist():
    classes = {(path.name, node.name) for path in SUITES
               for node in ast.parse(path.read_text()).body if isinstance(node, ast.ClassDef)}
    assert STATE_MACHINES <= classes, f"stale exclusions: {STATE_MACHINES - classes}"


def test_the_check_finds_early_returns():
    source = '''
def test_a(engine):
    out = engine.run()
    if out.is_leaf:
        return
    def nested():
        return
    for x in out:
        if x:
            return None
    assert out

class TestB:
    def test_c(self):
        return

def helper():
    return
'''
    found = {name: _early_returns(function)
             for name, function in _tests(ast.parse(source), "test_x.py")}
    assert found == {"test_a": [5, 10], "TestB.test_c": [15]}
