"""Which functions of the reference engine each test executed, and fingerprints of their source:
an incremental run (`cache`) compares to know that a stored verdict still holds.

Tracing every call (sys.settrace) doubled the suites' time, so `record` instead imports
reference/ from sources that say so themselves: each outermost function (a module's function, a
class's method; a nested function or lambda is part of the function around it) starts with a
call that adds its name, `file:qualname`, to `RAN`. That costs a set insertion per call. The
session records from before it imports the engine, so `RAN` holds what imports and collection
executed when it forks a run's child (`cache.Cache.begin`); the child then empties it before
each test, to record what that test executes; a test that starts the engine in a process of its
own (`fresh_process`) records there too, into the file the variable `RAN_FILE` names.
"""

from __future__ import annotations

import ast
import atexit
import functools
import hashlib
import importlib.machinery
import os
import sys
from pathlib import Path

from tools.mutation.targets import PACKAGE, REFERENCE

RAN: set[str] = set()
RAN_FILE = "AUTOGRAD_CONFORMANCE_RAN"  # the environment variable: where a fresh process appends
_GLOBAL = "__mutation_ran__"           # RAN's name in the instrumented modules


def record() -> None:
    """From now on, import reference/'s modules instrumented (not yet imported: call this before
    the engine is imported; `pytest.main` imports it). In a process that a test started, whose
    parent set `RAN_FILE`, also write what ran there to that file at exit."""
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
    if os.environ.get(RAN_FILE):
        atexit.register(_append, os.environ[RAN_FILE])


def _append(path: str) -> None:
    with open(path, "a") as file:
        file.writelines(name + "\n" for name in sorted(RAN))


def read_ran_file(path: Path) -> set[str]:
    return set(path.read_text().split()) if path.exists() else set()


class _Finder:
    """A meta path finder for reference/'s modules: the spec the other finders give, loaded by
    `_Loader`."""

    def find_spec(self, name, path=None, target=None):
        if not (name == PACKAGE or name.startswith(PACKAGE + ".")):
            return None
        for finder in sys.meta_path:
            if finder is not self and hasattr(finder, "find_spec"):
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    if isinstance(spec.loader, importlib.machinery.SourceFileLoader):
                        spec.loader = _Loader(name, spec.origin)
                    return spec
        return None


class _Loader(importlib.machinery.SourceFileLoader):
    """Compiles the instrumented source each time: never the cached bytecode, never cached."""

    def get_code(self, fullname):
        return self.source_to_code(self.get_data(self.path), self.path)

    def source_to_code(self, data, path, *, _optimize=-1):
        tree = ast.parse(data, path)
        module = self.name[len(PACKAGE):].lstrip(".").replace(".", "/")
        _instrument(tree, f"{module}/__init__.py".lstrip("/") if self.is_package(self.name)
                    else f"{module}.py")
        return compile(tree, path, "exec", dont_inherit=True, optimize=_optimize)

    def exec_module(self, module):
        vars(module)[_GLOBAL] = RAN
        super().exec_module(module)


def _instrument(tree: ast.Module, file: str) -> None:
    for qualname, func in outermost_functions(tree):
        call = ast.parse(f"{_GLOBAL}.add({f'{file}:{qualname}'!r})").body[0]
        docstring = ast.get_docstring(func, clean=False) is not None
        first = func.body[1 if docstring else 0] if len(func.body) > docstring else func.body[0]
        ast.copy_location(call, first)
        for node in ast.walk(call):
            ast.copy_location(node, first)
        func.body.insert(int(docstring), call)


def outermost_functions(tree: ast.AST, prefix: str = ""):
    """(qualname, def) of the module's functions and its classes' methods, nested classes too."""
    for node in getattr(tree, "body", ()):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + node.name, node
        elif isinstance(node, ast.ClassDef):
            yield from outermost_functions(node, f"{prefix}{node.name}.")


# ----- fingerprints of reference/'s source -------------------------------------------------------
def digest(*parts) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:20]


@functools.lru_cache(maxsize=1)
def reference_sources() -> tuple[dict[str, str], str]:
    """({`file:qualname`: a digest of the function's lines and where it starts}, a digest of the
    rest of reference/: every module with its outermost functions' bodies left out, i.e. imports,
    constants, class attributes, signatures, defaults and decorators, but for the functions that
    keep state between calls (`keeps_state`), whole: what they did in one test can decide
    another, so they count for every test). A line inserted above a function changes its
    digest: a traceback shows line numbers. Read once per process."""
    functions, skeletons = {}, []
    for path in sorted(REFERENCE.rglob("*.py")):
        file = path.relative_to(REFERENCE).as_posix()
        source = path.read_text()
        lines, tree = source.splitlines(), ast.parse(source)
        for qualname, func in outermost_functions(tree):
            functions[f"{file}:{qualname}"] = digest(func.lineno,
                                                     lines[func.lineno - 1:func.end_lineno])
            if not keeps_state(func):
                func.body = [ast.Pass()]
        skeletons.append((file, ast.dump(tree)))
    return functions, digest(skeletons)


def keeps_state(func: ast.FunctionDef) -> bool:
    """Whether a function keeps state from one call to the next: it is cached (a decorator
    whose name says so: functools.cache, lru_cache) or it assigns a module's global."""
    decorators = [ast.unparse(decorator) for decorator in func.decorator_list]
    return (any("cache" in decorator for decorator in decorators)
            or any(isinstance(node, (ast.Global, ast.Nonlocal)) for node in ast.walk(func)))


def functions_digest(names) -> str:
    """A digest of the current source of these functions (`file:qualname`; one that no longer
    exists counts as such) and of the rest of reference/ (see `reference_sources`)."""
    functions, skeleton = reference_sources()
    return digest(skeleton, [(name, functions.get(name)) for name in sorted(names)])
