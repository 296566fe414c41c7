"""The reference engine is read as the spec: no module too long to read in one sitting, and no import
circle (each module can be read after the ones it imports)."""
import ast
from pathlib import Path

import pytest

from autograd_conformance import reference

ROOT = Path(reference.__file__).parent
PACKAGE = "reference"
MAX_LINES = 300


def module_name(path):
    """'reference.ops.views' for ROOT/ops/views.py; a package is named by its __init__.py."""
    parts = (PACKAGE,) + path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(ROOT.rglob("*.py"))}


def imports_of(name):
    """The modules of reference/ that `name` imports, at any depth of its code (deferred ones too)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            target = f"{base}.{node.module}" if node.module else base
            for alias in node.names:  # `from . import x` imports the submodule x when there is one
                found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in MODULES else target)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("autograd_conformance.reference"):
            found.add(PACKAGE + node.module.removeprefix("autograd_conformance.reference"))
    return sorted(found & MODULES.keys() - {name})


def find_cycle():
    """An import circle as a list of modules (first == last), or None."""
    graph = {name: imports_of(name) for name in MODULES}
    done, path = set(), []

    def visit(name):
        if name in path:
            return path[path.index(name):] + [name]
        if name in done:
            return None
        path.append(name)
        for target in graph[name]:
            cycle = visit(target)
            if cycle:
                return cycle
        path.pop()
        done.add(name)
        return None

    for name in graph:
        cycle = visit(name)
        if cycle:
            return cycle
    return None


def test_the_checker_sees_the_package_imports():
    """The parse finds real edges, so that 'no cycle' below is not vacuous."""
    assert "reference.tensor" in imports_of("reference.graph")
    assert "reference.ops.common" in imports_of("reference.ops.arithmetic")
    assert "reference.autograd.gradients" in imports_of("reference.autograd.functional")


def test_no_import_cycle_in_reference():
    cycle = find_cycle()
    assert cycle is None, "import circle: " + " -> ".join(cycle)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_is_short_enough_to_read_in_one_sitting(name):
    lines = len(MODULES[name].read_text().splitlines())
    assert lines <= MAX_LINES, f"{MODULES[name].relative_to(ROOT)} has {lines} lines (at most {MAX_LINES})"
