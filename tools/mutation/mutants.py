"""The mutants: one operator's change at one site of one target (`generate`, `find`), and how a
process installs one into the reference engine it imported (`install`)."""

from __future__ import annotations

import ast
import copy
import importlib
import sys
from collections import Counter
from dataclasses import dataclass, field

from tools.mutation.operators import OPERATORS, readable
from tools.mutation.targets import PACKAGE, Target, sites, targets


@dataclass
class Mutant:
    """One change at one site of one function. `source` is the whole mutated def, which
    `install` compiles in place of the original."""

    id: str
    file: str           # under reference/
    module: str
    qualname: str
    line: int
    operator: str
    before: str         # the site's code
    after: str          # what replaces it
    path: tuple
    source: str
    def_line: int
    lines: tuple        # the lines of reference/{file} that run whenever the site's code runs
    area: str = "ops"   # the target's: ops, forward (a forward-mode rule) or plumbing
    tree: ast.FunctionDef = field(repr=False, compare=False, default=None)

    @property
    def site(self) -> str:
        return f"reference/{self.file}:{self.line}"

    @property
    def diff(self) -> str:
        return f"{self.before}  ->  {self.after}"


def node_at(root: ast.AST, path: tuple) -> ast.AST:
    for name, index in path:
        root = getattr(root, name) if index is None else getattr(root, name)[index]
    return root


def replace_at(root: ast.AST, path: tuple, new: ast.AST) -> None:
    parent = node_at(root, path[:-1])
    name, index = path[-1]
    if index is None:
        setattr(parent, name, new)
    else:
        getattr(parent, name)[index] = new


def mutate(func: ast.FunctionDef, path: tuple, build) -> tuple[ast.FunctionDef, ast.AST]:
    """A copy of func with the node at path replaced by build(node of the copy)."""
    mutated = copy.deepcopy(func)
    new = build(node_at(mutated, path))
    replace_at(mutated, path, new)
    return ast.fix_missing_locations(mutated), new


def _mutants_of(target: Target):
    seen = {ast.unparse(target.node)}
    counts = Counter()
    for site in sites(target):
        for operator in OPERATORS:
            for build in operator(site):
                mutated, new = mutate(target.node, site.path, build)
                source = ast.unparse(mutated)
                if source in seen:  # no change, or the same function as another mutant
                    continue
                seen.add(source)
                counts[operator.__name__] += 1
                yield Mutant(
                    id=f"{target.file}:{target.qualname}:{operator.__name__}:"
                       f"{counts[operator.__name__]}",
                    file=target.file, module=target.module, qualname=target.qualname,
                    line=getattr(site.node, "lineno", target.node.lineno),
                    operator=operator.__name__, before=readable(site.node),
                    after=readable(new), path=site.path, source=source,
                    def_line=target.node.lineno,
                    lines=_covering_lines(target.node, site.path), area=target.area,
                    tree=mutated)


def _covering_lines(func: ast.FunctionDef, path: tuple) -> tuple[int, int]:
    """The line range of the innermost statement around the site (a simple statement runs all of
    its lines or none), or for a site in a compound statement's header (`if x:`), from the
    header's first line to the site's last: one of them runs whenever the site's code runs."""
    statement, node = func, func
    for step in path:
        node = node_at(node, (step,))
        if isinstance(node, ast.stmt):
            statement = node
    compound = isinstance(statement, (ast.If, ast.For, ast.While, ast.With, ast.Try))
    last = getattr(node, "end_lineno", None) if compound else statement.end_lineno
    return statement.lineno, max(statement.lineno, last or statement.lineno)


def generate() -> list[Mutant]:
    """Every mutant of every target; ids are `file:qualname:operator:k`, the k-th mutant of that
    operator in that function, stable while the function itself does not change."""
    found = []
    for target in targets():
        found += _mutants_of(target)
    return found


def find(mutant_id: str) -> Mutant:
    """The mutant with this ID; only the mutants of its function are generated."""
    for target in targets():
        if mutant_id.startswith(f"{target.file}:{target.qualname}:"):
            for mutant in _mutants_of(target):
                if mutant.id == mutant_id:
                    return mutant
    raise LookupError(f"no mutant {mutant_id!r}")


# ----- applying a mutant in the mutant's own process ----------------------------------------------
# The environment variable that names (by ID) the mutant of a run's child, which a process the
# child's tests start installs when it imports the engine afresh (tools/mutation/engine.py).
MUTANT_VARIABLE = "AUTOGRAD_CONFORMANCE_MUTANT"
ENGINE_NAME = "mutant_engine"  # the engine's name in the control and every mutant (engine.py)


def install(mutant: Mutant) -> None:
    """Replace the mutated function of the reference engine by the mutant's def, compiled in its
    module's namespace, and rebind every name the reference engine has for the original."""
    module = importlib.import_module(mutant.module)
    owner_name, _, name = mutant.qualname.rpartition(".")
    owner = getattr(module, owner_name) if owner_name else None
    original = vars(owner)[name] if owner else getattr(module, name)
    mutated = _compile(module, owner, mutant.source, mutant.def_line)
    mutated.__qualname__ = mutant.qualname
    if owner:
        setattr(owner, name, mutated)  # subclasses that inherit the method see it too
    else:
        _rebind(original, mutated)


def _compile(module, owner, source: str, line: int):
    """The function `source` defines, with the module's globals. It is compiled inside a factory
    whose argument is `__class__`, so that a method's zero-argument `super()` finds its class."""
    func = ast.parse(source).body[0]
    ast.increment_lineno(func, line - func.lineno)
    factory = ast.parse("def _mutant_factory(__class__):\n    pass\n")
    factory.body[0].body = [func, ast.Return(ast.Name(func.name, ast.Load()))]
    ast.fix_missing_locations(factory)
    namespace = {}
    exec(compile(factory, module.__file__, "exec"), vars(module), namespace)
    return namespace["_mutant_factory"](owner)


def _rebind(original, mutated) -> None:
    """Every reference module's name for `original`, aliases (`backward as _backward`) and class
    attributes included, now names `mutated`; so does a class's property whose getter it is
    (Tensor.real is property(ops.real))."""
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == PACKAGE or module_name.startswith(PACKAGE + ".")):
            continue
        for attribute, value in list(vars(module).items()):
            if value is original:
                setattr(module, attribute, mutated)
            elif isinstance(value, type) and value.__module__ == module_name:
                for name, member in list(vars(value).items()):
                    if member is original:
                        setattr(value, name, mutated)
                    elif isinstance(member, property) and member.fget is original:
                        setattr(value, name, property(mutated, member.fset, member.fdel))
