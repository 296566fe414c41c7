"""The project's Python modules, by import name, and what each imports: read from the source (no
import), for the tests of the package layout and of the reference engine's structure."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The top-level folders installed under another import name (pyproject.toml's package-dir).
MAPPED = {"suites": "autograd_conformance.suites", "reference": "autograd_conformance.reference",
          "reports": "autograd_conformance.reports"}
# The folders that hold importable code; benchmarks/ holds scripts run by path.
PACKAGES = ("autograd_conformance", "tests", "tools", *MAPPED)


def module_name(path: Path) -> str:
    """The import name of the module at `path` (a package by its __init__.py)."""
    parts = list(path.resolve().relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    if parts[0] in MAPPED:
        parts[0] = MAPPED[parts[0]]
    return ".".join(parts)


@cache
def project_modules() -> dict[str, Path]:
    """Import name -> file of every module in the folders that hold importable code."""
    return {module_name(path): path for folder in PACKAGES
            for path in sorted((ROOT / folder).rglob("*.py"))}


def imports_of(path: Path) -> set[str]:
    """The absolute names of the modules `path` imports, at any depth of its code (deferred
    imports too); relative imports resolved. `from x import y` counts as `x.y` when that is a
    project module, else as `x`."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            target = ".".join(part for part in (base, node.module) if part)
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                found.add(submodule if submodule in project_modules() else target)
    return found
