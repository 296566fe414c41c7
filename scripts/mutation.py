#!/usr/bin/env python
"""Mutation testing of the reference engine: do the suites notice a wrong gradient nobody wrote?

The broken engines in broken are bugs someone thought of. This script generates them: small
AST changes at one site each (a flipped sign, a dropped term, swapped operands, a missing
transpose or broadcast reduction, a float32 round trip, an accumulation that overwrites, ...) in
the reference engine's backward formulas (reference/ops) and gradient plumbing (graph.py, walk.py,
autograd/gradients.py, forward mode, hooks). Each mutant runs the suites in a process of its own,
forked from one pytest session that collected them once (see `Child`), where it replaces the one
mutated function of the reference engine (`install`): reference/ on disk is never edited and no
mutant reaches another run.

    python scripts/mutation.py list [--ids]          # the mutants, counted per operator and file
    python scripts/mutation.py show ID ...           # what a mutant changes
    python scripts/mutation.py run [-j 2] [--sample N] [--budget MINUTES] [ID ...]

`run` first runs the unmutated engine the same way (the control: a suite that fails on it would
count every mutant killed), tracing which lines of reference/ each test runs. A mutant runs only
the tests that executed its site, until the first failure kills it: first those that killed other
mutants of its function, then the quickest (see `Killers`); a mutant
whose site no test executes is `uncovered`, a survivor that need not run (see `covering_tests`).
Results go to benchmarks/RESULTS-mutation.md and benchmarks/mutation.json. Mutants listed with a
reason in scripts/mutation_equivalent.txt are equivalent: they leave the score's denominator.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import datetime
import importlib
import json
import os
import random
import signal
import sys
import tempfile
import textwrap
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference"
PACKAGE = "autograd_conformance.reference"
EQUIVALENT_FILE = ROOT / "scripts" / "mutation_equivalent.txt"
RESULTS_MD = ROOT / "benchmarks" / "RESULTS-mutation.md"
RESULTS_JSON = ROOT / "benchmarks" / "mutation.json"
ENGINE_MODULE = "mutant_engine"
CONTROL_TIMEOUT = 900  # seconds: the control runs every test, on a machine that may be busy

# ----- what is mutated ----------------------------------------------------------------------------
# The gradient plumbing outside ops/: qualnames of the functions whose bugs give wrong gradients
# or a wrong graph. Messages (_modified_message), names and warnings are left alone.
PLUMBING = {
    "graph.py": ("Node.__init__", "Node.needs_grad", "Node.save", "Node.saved", "Node._unpack",
                 "AccumulateGrad.backward", "accumulate_into", "recording", "record",
                 "input_node", "grad_accumulator", "edge", "Packed.unpacked"),
    "walk.py": ("_count_dependents", "_leading_to", "_arrive", "run_backward",
                "_run_tensor_hooks", "_store_retained"),
    "autograd/gradients.py": ("_root_grads", "_root_edges", "_for_output", "backward",
                              "_accumulator_of", "grad", "_capture"),
    "autograd/function.py": ("FunctionBackward.__init__", "FunctionBackward.backward",
                             "FunctionBackward._incoming", "FunctionBackward._checked",
                             "Function.apply", "_run_forward", "_attach", "_as_output"),
    "ops/views.py": ("View.follow_base", "positions_in_base", "view_of"),
    "ops/inplace.py": ("_rebase",),
    # forward-mode AD: tangents, levels and duals (the ops' own rules: `_forward_targets`)
    "dual.py": ("tangent", "set_tangent", "jvp"),
    "autograd/forward_ad.py": ("dual_level.__enter__", "dual_level.__exit__", "make_dual",
                               "unpack_dual"),
    # hooks on tensors, nodes and modules, and anomaly mode's NaN check
    "hooks.py": ("RemovableHandle.remove", "HookDict.add"),
    "tensor_hooks.py": ("TensorHooks.register_hook",
                        "TensorHooks.register_post_accumulate_grad_hook"),
    "node_hooks.py": ("NodeHookMethods.register_prehook", "NodeHookMethods.register_hook",
                      "_register", "call_prehooks", "call_posthooks", "_listed", "_tensors",
                      "_replaced", "replacement"),
    "module_hooks.py": ("BackwardHookFunctionBackward.backward", "call_with_backward_hooks",
                        "_HookedCall.wrap_inputs", "_HookedCall.wrap_outputs",
                        "_HookedCall._on_outputs", "_HookedCall._on_inputs", "_through_node",
                        "_output", "_spread", "_run"),
    "anomaly.py": ("check_outputs", "report_failure"),
}
# ops/ functions that are not reached from a backward method but only exist for one: the forward
# computes the keepdim shape that SumBackward1 and MeanBackward1 reshape their gradient to.
OPS_EXTRA = {"reductions.py": ("_kept_shape",)}

@dataclass
class Target:
    """One function to mutate: its file under reference/, module, qualname and parsed def."""

    file: str
    module: str
    qualname: str
    node: ast.FunctionDef
    area: str


def _module_of(file: str) -> str:
    return PACKAGE + "." + file.removesuffix(".py").replace("/", ".")


def _parse(file: str) -> ast.Module:
    return ast.parse((REFERENCE / file).read_text(), filename=str(REFERENCE / file))


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """Top-level functions and methods of top-level classes, by qualname."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    found[f"{node.name}.{item.name}"] = item
    return found


def _ops_imports(tree: ast.Module) -> dict[str, tuple[str, str]]:
    """`from .common import sum_to` in an ops module: local name -> (ops file, name there)."""
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = (node.module + ".py", alias.name)
    return names


def _local_names(func: ast.FunctionDef) -> set[str]:
    """Parameters and assigned names: a parameter `meta` is not the function `meta`."""
    names = {arg.arg for arg in ast.walk(func.args) if isinstance(arg, ast.arg)}
    return names | {node.id for node in ast.walk(func)
                    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}


def _ops_targets() -> list[Target]:
    """The backward methods of ops/ and, transitively, the ops/ helpers they call by name."""
    files = sorted(p.name for p in (REFERENCE / "ops").glob("*.py") if p.name != "__init__.py")
    trees = {file: _parse(f"ops/{file}") for file in files}
    functions = {file: _functions(tree) for file, tree in trees.items()}
    imports = {file: _ops_imports(tree) for file, tree in trees.items()}
    chosen = {(file, name) for file in files for name in functions[file]
              if name.endswith(".backward")}
    chosen |= {(file, name) for file, names in OPS_EXTRA.items() for name in names}
    queue = sorted(chosen)
    while queue:
        file, name = queue.pop()
        local = _local_names(functions[file][name])
        for used in ast.walk(functions[file][name]):
            if not (isinstance(used, ast.Name) and isinstance(used.ctx, ast.Load)) \
                    or used.id in local:
                continue
            where = (file, used.id) if used.id in functions[file] else imports[file].get(used.id)
            if where and where[0] in functions and where[1] in functions[where[0]] \
                    and where not in chosen:
                chosen.add(where)
                queue.append(where)
    ordered = sorted(chosen, key=lambda key: (key[0], functions[key[0]][key[1]].lineno))
    return [Target(f"ops/{file}", _module_of(f"ops/{file}"), name, functions[file][name], "ops")
            for file, name in ordered]


def _rules(func: ast.FunctionDef) -> list[ast.Lambda]:
    """The forward-mode rules an ops/ forward passes to `jvp(out, inputs, *rules)` as lambdas:
    each input's derivative applied to its tangent. Rules that are functions of their own
    (`unchanged`, the reduction the forward also uses) are not forward-mode code."""
    return [rule for call in ast.walk(func)
            if isinstance(call, ast.Call) and ast.unparse(call.func) == "jvp"
            for rule in call.args[2:] if isinstance(rule, ast.Lambda)]


def _forward_targets(chosen: list[Target]) -> list[Target]:
    """The ops/ forwards with forward-mode rules, mutated only inside those rules (`sites`); a
    function that is a backward target already has its whole body mutated."""
    taken = {(target.file, target.qualname) for target in chosen}
    found = []
    for path in sorted((REFERENCE / "ops").glob("*.py")):
        file = f"ops/{path.name}"
        for name, func in _functions(_parse(file)).items():
            if _rules(func) and (file, name) not in taken:
                found.append(Target(file, _module_of(file), name, func, "forward"))
    return found


def targets() -> list[Target]:
    """Every function the mutator changes, in file and line order."""
    found = _ops_targets()
    found += _forward_targets(found)
    for file, qualnames in PLUMBING.items():
        functions = _functions(_parse(file))
        found += [Target(file, _module_of(file), name, functions[name], "plumbing")
                  for name in qualnames]
    return found


# ----- sites: the nodes of a function body that may be changed -----------------------------------
_GRADIENT_STORES = ("pending", "captured")  # the dicts where the walk and grad() sum gradients
_TENSOR_MAKERS = ("make", "output", "threshold_backward")  # calls that return Tensors only


@dataclass
class Site:
    """A node of a target's body, where it is (`path` of (field, index) steps from the def), and
    what the operators need to know about it."""

    node: ast.AST
    path: tuple
    returned: bool     # a gradient the function returns (an ops/ target's return value)
    array: bool        # a returned or stored gradient that may be an array (float32 applies)
    index: bool        # an integer constant that indexes: `x[0]`, `self.needs_grad(1)`


def _skipped(node: ast.AST) -> bool:
    """Subtrees that only build messages or warnings: changing them changes no gradient."""
    if isinstance(node, (ast.Raise, ast.JoinedStr, ast.Assert)):
        return True
    if isinstance(node, ast.Expr):
        return _skipped(node.value)
    return isinstance(node, ast.Call) and ast.unparse(node.func) == "warnings.warn"


def _children(node: ast.AST):
    for name, value in ast.iter_fields(node):
        if isinstance(value, list):
            for index, child in enumerate(value):
                if isinstance(child, ast.AST):
                    yield (name, index), child
        elif isinstance(value, ast.AST):
            yield (name, None), value


def _body(func: ast.FunctionDef):
    """The def's statements without its docstring: signatures and docstrings are never mutated."""
    first = func.body[0]
    docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
        and isinstance(first.value.value, str)
    return [(("body", index), stmt) for index, stmt in enumerate(func.body)
            if not (docstring and index == 0)]


def _returned(func: ast.FunctionDef) -> tuple[set[int], set[int]]:
    """ids of the gradients a function returns, and of those among them that are Tensors only.

    Returned: the elements of a backward method's returned tuple (a backward that returns another's
    tuple is left alone), a helper's return value, the computed branch of `x if self.needs_grad(i)
    else None`; None, zeros and tuples are left out (negated or rounded, a zero is still a zero).
    Tensors only: `make(...)`, `output(...)`, or returned under `if isinstance(x, Tensor):`, which
    a float32 round trip of arrays leaves alone."""
    found, tensors = set(), set()
    for node, under_tensor_test in _returns(func.body, False):
        if func.name == "backward" and not isinstance(node.value, ast.Tuple):
            continue
        values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        for value in values:
            if isinstance(value, ast.IfExp) and _is_none(value.orelse):
                value = value.body
            if _is_none(value) or _is_zero(value) or _called(value) == "tuple":
                continue
            found.add(id(value))
            if under_tensor_test or _called(value) in _TENSOR_MAKERS:
                tensors.add(id(value))
    return found, tensors


def _returns(statements, under_tensor_test: bool):
    """The return statements among statements, and whether an `if isinstance(_, Tensor):` guards
    each; nested defs are not entered."""
    for stmt in statements:
        if isinstance(stmt, ast.Return) and stmt.value is not None:
            yield stmt, under_tensor_test
        elif isinstance(stmt, ast.If):
            tensor_test = ast.unparse(stmt.test).endswith(", Tensor)") and \
                ast.unparse(stmt.test).startswith("isinstance(")
            yield from _returns(stmt.body, under_tensor_test or tensor_test)
            yield from _returns(stmt.orelse, under_tensor_test)
        elif isinstance(stmt, (ast.For, ast.While, ast.With, ast.Try)):
            for block in ("body", "orelse", "finalbody", "handlers"):
                yield from _returns(getattr(stmt, block, []), under_tensor_test)
        elif isinstance(stmt, ast.ExceptHandler):
            yield from _returns(stmt.body, under_tensor_test)


def _called(node: ast.AST) -> str | None:
    return ast.unparse(node.func) if isinstance(node, ast.Call) else None


def _stored(func: ast.FunctionDef) -> set[int]:
    """ids of the gradients the plumbing stores: into the walk's `pending` or grad's `captured`
    dicts, added into `._array`, or made an array (`np.array(grad, ...)`). Other stores hold
    Tensors, counts or nodes, which a float32 round trip leaves alone."""
    found = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript) \
                and ast.unparse(node.targets[0].value) in _GRADIENT_STORES:
            found.add(id(node.value))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Attribute) \
                and node.target.attr == "_array":
            found.add(id(node.value))
        elif isinstance(node, ast.Call) and ast.unparse(node.func) == "np.array" and node.args:
            found.add(id(node.args[0]))
    return found


def _indices(func: ast.FunctionDef) -> set[int]:
    """ids of the integer constants that index a sequence: `x[0]`, `self.needs_grad(1)`."""
    found = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            found.add(id(node.slice))
        elif _called(node) == "self.needs_grad":
            found.update(id(arg) for arg in node.args)
    return found


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_zero(node: ast.AST) -> bool:
    """`grad * 0` or a zeros constructor, `make(np.zeros(...))` included."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return any(isinstance(side, ast.Constant) and side.value == 0
                   for side in (node.left, node.right))
    if _called(node) == "make" and node.args:
        return _is_zero(node.args[0])
    return _called(node) in ("zeros_for", "np.zeros")


def sites(target: Target):
    """Every mutable node of the target's body with its path, in source order; of a forward
    target's body, only its forward-mode rules, whose bodies are the tangents they return."""
    returned, tensors = _returned(target.node) if target.area == "ops" else (set(), set())
    arrays = (returned - tensors) | (_stored(target.node) if target.area == "plumbing" else set())
    indices = _indices(target.node)
    rules = {id(rule.body) for rule in _rules(target.node)} if target.area == "forward" else set()
    returned |= rules
    arrays |= rules

    def visit(node, path, inside=not rules):
        if _skipped(node):
            return
        inside = inside or id(node) in rules
        if inside:
            yield Site(node, path, id(node) in returned, id(node) in arrays, id(node) in indices)
        for step, child in _children(node):
            yield from visit(child, path + (step,), inside)

    for step, stmt in _body(target.node):
        yield from visit(stmt, (step,))


# ----- operators: each yields the replacement builders of one site -------------------------------
# A builder takes the site's node *in a copy of the def* and returns the node that replaces it.
_NON_COMMUTATIVE = (ast.Sub, ast.Div, ast.MatMult, ast.Pow, ast.FloorDiv, ast.Mod)
_FLIPPED = {ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Lt: ast.LtE, ast.LtE: ast.Lt}
_NEGATED = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
            ast.In: ast.NotIn, ast.NotIn: ast.In}
_HELPERS = ("expand_to", "cast", "np.broadcast_to")   # f(x, ...) -> x
_METHODS = ("reshape", "astype")                      # x.m(...) -> x
# float32 round trip of an array, left alone for anything else (Tensors under create_graph, None).
_F32 = ("(lambda v, np=__import__('numpy'): v.astype(np.float32).astype(v.dtype) "
        "if isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind == 'f' else v)")


def _binop(node, op):
    return ast.BinOp(node.left, op, node.right)


def _other_sign(op):
    return ast.Sub() if isinstance(op, ast.Add) else ast.Add()


def sign_flip(site):
    """-x -> x, a + b <-> a - b, x += y <-> x -= y, and a returned gradient g -> -g, unless g
    holds a -x already (`sum_to(-grad, m)`, `-grad * y`: g is linear in it, so -g is the -x -> x
    mutant again)."""
    node = site.node
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        yield lambda n: n.operand
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        yield lambda n: _binop(n, _other_sign(n.op))
    if isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.Sub)):
        yield lambda n: ast.AugAssign(n.target, _other_sign(n.op), n.value)
    if site.returned and not any(_negated_variable(inner) for inner in ast.walk(node)):
        yield lambda n: ast.UnaryOp(ast.USub(), n)


def _negated_variable(node: ast.AST) -> bool:
    """-x for an x that is not a constant (-1 is a number, not a negation)."""
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) \
        and not isinstance(node.operand, ast.Constant)


def _dropped_operands(site, kinds, keep_right_too):
    """An operand of a binary op of `kinds` left out: a -> a ? b's left, and (for the kinds in
    `keep_right_too`) its right."""
    node = site.node
    if isinstance(node, ast.BinOp) and isinstance(node.op, kinds):
        yield lambda n: n.left
        if isinstance(node.op, keep_right_too):
            yield lambda n: n.right


def drop_term(site):
    """a + b -> a and -> b (an accumulation `pending + grad` -> grad), a - b -> a."""
    yield from _dropped_operands(site, (ast.Add, ast.Sub), ast.Add)


def drop_factor(site):
    """a * b -> a and -> b, a / b -> a: a chain-rule factor forgotten."""
    yield from _dropped_operands(site, (ast.Mult, ast.Div), ast.Mult)


def swap_operands(site):
    """a - b -> b - a, a / b -> b / a, a @ b -> b @ a, a ** b -> b ** a."""
    node = site.node
    if isinstance(node, ast.BinOp) and isinstance(node.op, _NON_COMMUTATIVE) \
            and ast.dump(node.left) != ast.dump(node.right):
        yield lambda n: ast.BinOp(n.right, n.op, n.left)


def remove_transpose(site):
    """x.T -> x, x.transpose(...) / x.t() -> x, np.swapaxes(x, ...) / swap_dims(x, ...) -> x."""
    node = site.node
    if isinstance(node, ast.Attribute) and node.attr == "T" and isinstance(node.ctx, ast.Load):
        yield lambda n: n.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in ("transpose", "t"):
        yield lambda n: n.func.value
    if isinstance(node, ast.Call) and ast.unparse(node.func) in ("np.swapaxes", "swap_dims") \
            and node.args:
        yield lambda n: n.args[0]


def _reduction(node) -> bool:
    return isinstance(node, ast.Call) and (
        ast.unparse(node.func) in ("np.sum", "np.mean")
        or isinstance(node.func, ast.Attribute) and node.func.attr in ("sum", "mean"))


def _without_axis(call):
    numpy = ast.unparse(call.func).startswith("np.")
    return ast.Call(call.func, call.args[:1] if numpy else [],
                    [k for k in call.keywords if k.arg not in ("axis", "dim")])


def _keepdims_flipped(call):
    name = "keepdims" if ast.unparse(call.func).startswith("np.") \
        or any(k.arg == "axis" for k in call.keywords) else "keepdim"
    given = [k for k in call.keywords if k.arg in ("keepdims", "keepdim")]
    others = [k for k in call.keywords if k.arg not in ("keepdims", "keepdim")]
    value = ast.UnaryOp(ast.Not(), given[0].value) if given else ast.Constant(True)
    return ast.Call(call.func, call.args, others + [ast.keyword(name, value)])


def reduction_axis(site):
    """A reduction over its dims -> over everything; keepdims flipped."""
    node = site.node
    if not _reduction(node):
        return
    numpy = ast.unparse(node.func).startswith("np.")
    if len(node.args) > (1 if numpy else 0) or any(k.arg in ("axis", "dim") for k in node.keywords):
        yield _without_axis
    yield _keepdims_flipped


def skip_sum_to(site):
    """sum_to(g, meta) -> g: a broadcast gradient not summed back to its input's shape."""
    node = site.node
    if isinstance(node, ast.Call) and ast.unparse(node.func) == "sum_to" and node.args:
        yield lambda n: n.args[0]


def skip_helper(site):
    """expand_to / cast / np.broadcast_to (x, ...) -> x, x.reshape(...) / x.astype(...) -> x."""
    node = site.node
    if isinstance(node, ast.Call) and ast.unparse(node.func) in _HELPERS and node.args:
        yield lambda n: n.args[0]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in _METHODS:
        yield lambda n: n.func.value


def off_by_one(site):
    """An integer constant (an index, a dim, a count) n -> n + 1 and n - 1; not index 0 -> -1,
    which Python reads as the last element: for the 1- and 2-element sequences indexed here
    (inputs, metas, next_functions) that is index 0 itself or index 1, another mutant."""
    node = site.node
    if isinstance(node, ast.Constant) and type(node.value) is int:
        yield lambda n: ast.Constant(n.value + 1)
        if not (site.index and node.value == 0):
            yield lambda n: ast.Constant(n.value - 1)


def float32(site):
    """A returned or stored float gradient rounded through float32 (and cast back)."""
    if site.array:
        yield lambda n: ast.Call(ast.parse(_F32, mode="eval").body, [n], [])


def accumulate_to_assign(site):
    """x += y -> x = y: the last contribution wins."""
    node = site.node
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
        yield lambda n: ast.Assign([n.target], n.value)


def comparison_flip(site):
    """> <-> >=, < <-> <=: a boundary case (relu at 0, an empty count) decided the other way."""
    node = site.node
    if isinstance(node, ast.Compare):
        for index, op in enumerate(node.ops):
            if type(op) in _FLIPPED:
                yield _compare_with(index, _FLIPPED[type(op)])


def negate_condition(site):
    """== <-> !=, is <-> is not, in <-> not in, not x -> x."""
    node = site.node
    if isinstance(node, ast.Compare):
        for index, op in enumerate(node.ops):
            if type(op) in _NEGATED:
                yield _compare_with(index, _NEGATED[type(op)])
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield lambda n: n.operand


def _compare_with(index, op_class):
    def build(n):
        ops = list(n.ops)
        ops[index] = op_class()
        return ast.Compare(n.left, ops, n.comparators)
    return build


def constant_change(site):
    """A float constant c -> 0.0 and 2c (1.0 -> 0.0 / 2.0); True <-> False."""
    node = site.node
    if isinstance(node, ast.Constant) and type(node.value) is float:
        if node.value != 0.0:
            yield lambda n: ast.Constant(0.0)
            yield lambda n: ast.Constant(2 * n.value)
        else:
            yield lambda n: ast.Constant(1.0)
    if isinstance(node, ast.Constant) and type(node.value) is bool:
        yield lambda n: ast.Constant(not n.value)


def delete_statement(site):
    """A call statement or a write into an object (`d[k] = v`, `t.attr = v`, `x += v`) -> pass:
    a version not bumped, a value not released, a gradient not stored."""
    node = site.node
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        yield lambda n: ast.Pass()
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        written = node.targets if isinstance(node, ast.Assign) else [node.target]
        if all(isinstance(t, (ast.Attribute, ast.Subscript)) for t in written):
            yield lambda n: ast.Pass()


OPERATORS = (sign_flip, drop_term, drop_factor, swap_operands, remove_transpose, reduction_axis,
             skip_sum_to, skip_helper, off_by_one, float32, accumulate_to_assign, comparison_flip,
             negate_condition, constant_change, delete_statement)


# ----- mutants ------------------------------------------------------------------------------------
@dataclass
class Mutant:
    """One change at one site of one function. `source` is the whole mutated def, which the
    mutant's engine compiles in place of the original."""

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


def _readable(node: ast.AST) -> str:
    """The node's code, the float32 round trip's lambda shown as `f32`."""
    return ast.unparse(node).replace(f"({ast.unparse(ast.parse(_F32, mode='eval'))})(", "f32(")


def _mutants_of(target: Target, original: str):
    seen = {original}
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
                    operator=operator.__name__, before=_readable(site.node),
                    after=_readable(new), path=site.path, source=source,
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
        found += _mutants_of(target, ast.unparse(target.node))
    return found


# ----- applying a mutant in the mutant's own process ----------------------------------------------
def install(module_name: str, qualname: str, source: str, line: int) -> None:
    """Replace the function `qualname` of `module_name` by the one `source` defines, compiled in
    the module's namespace, and rebind every name the reference engine has for the original."""
    module = importlib.import_module(module_name)
    owner_name, _, name = qualname.rpartition(".")
    owner = getattr(module, owner_name) if owner_name else None
    original = vars(owner)[name] if owner else getattr(module, name)
    mutated = _compile(module, owner, source, line)
    mutated.__qualname__ = qualname
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
    attributes included, now names `mutated`."""
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


def install_engine(namespace: dict, payload: dict | None) -> None:
    """Make the module whose globals are `namespace` an engine: the reference engine's namespace
    with the payload's mutant installed (None: the unmutated control)."""
    reference = importlib.import_module(PACKAGE)

    def delegate(attribute):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return getattr(reference, attribute)

    # one name for the control and every mutant: the control's test IDs select a mutant's tests
    namespace.update(name=ENGINE_MODULE, version=reference.version,
                     capabilities=reference.capabilities, to_numpy=reference.to_numpy,
                     __getattr__=delegate)
    if payload:
        install(payload["module"], payload["qualname"], payload["source"], payload["line"])


def payload(mutant: Mutant | None) -> dict | None:
    if mutant is None:
        return None
    return {"id": mutant.id, "module": mutant.module, "qualname": mutant.qualname,
            "source": mutant.source, "line": mutant.def_line}


def write_engine(directory: Path, mutant: Mutant | None) -> Path:
    """The engine module of a mutant (`--engine mutant_engine`, with `directory` on PYTHONPATH)."""
    title = f"Mutant {mutant.id}: {mutant.diff}" if mutant else "The unmutated control"
    path = Path(directory) / f"{ENGINE_MODULE}.py"
    path.write_text(f"{json.dumps(title + '. Written by scripts/mutation.py.')}\n"
                    "from scripts.mutation import install_engine\n\n"
                    f"install_engine(globals(), {payload(mutant)!r})\n")
    return path


# ----- running ------------------------------------------------------------------------------------
# Starting pytest (its plugins, the suite modules' imports, collection) took about 1-1.5 s of each
# mutant's run, as long as its tests. So `run` starts one pytest session in this process, which
# collects every suite test once and then, instead of running them, forks a child for each run:
# the control, then each mutant. The child installs its mutant into the reference engine it
# inherited, runs its tests in order until the first failure and exits; this process never runs
# a test or a mutated function, so no mutant reaches another run.
SUITES = "suites"


def pytest_args(test_timeout: float, keyword: str | None = None) -> list[str]:
    """The session's command line: shrinking off (the probe plugin: a kill needs a failure, not
    the smallest one), a hung test failed by the harness's own time limit, asserts not rewritten
    (only outcomes count), output not captured (each run writes its own log), no conformance
    summary (the session itself runs no test); `keyword`: pytest's -k, to run only some tests."""
    return [SUITES, "--engine", ENGINE_MODULE, "--hypothesis-profile", "ci", "-q", "-s",
            "-p", "no:cacheprovider", "-n", "0", "--assert=plain", "--no-report",
            "-p", "no:autograd-conformance-report", "-p", "broken._probe",
            "--test-timeout", f"{test_timeout:g}", *(["-k", keyword] if keyword else [])]


class Collected:
    """pytest plugin: once the suites are collected, hand the items ({node ID: item}) to `work`
    instead of running them; what `work` returns is kept in `result`."""

    def __init__(self, work):
        self.work, self.result = work, None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        if session.testsfailed:
            raise session.Interrupted(f"{session.testsfailed} errors during collection")
        self.result = self.work({item.nodeid: item for item in session.items})
        return True


class _Outcomes:
    """pytest plugin of a child: the failures of its run, and (with `trace`) which lines of
    reference/ each test executed, written as JSON {node ID: {"seconds": s, "lines": {file under
    reference/: [line, ...]}}}: the control's coverage (see `covering_tests`); `"lines": null`
    for a test marked `fresh_process`, which runs the engine in a process of its own too."""

    def __init__(self):
        self.failed: list[dict] = []
        self.tests: dict[str, dict] = {}
        self.lines: dict[str, set] = {}

    def pytest_runtest_logreport(self, report):
        if report.failed:
            self.failed.append({"nodeid": report.nodeid,
                                "timeout": "TimeLimitExceeded" in report.longreprtext})

    @contextlib.contextmanager
    def traced(self, item):
        """Run `item` inside this, recording the lines of reference/ it executes."""
        prefix = os.path.dirname(importlib.import_module(PACKAGE).__file__) + os.sep
        self.lines, started = {}, time.perf_counter()

        def line(frame, event, arg):
            if event == "line":
                self.lines.setdefault(frame.f_code.co_filename, set()).add(frame.f_lineno)
            return line

        sys.settrace(lambda frame, event, arg:
                     line if frame.f_code.co_filename.startswith(prefix) else None)
        try:
            yield
        finally:
            sys.settrace(None)
        self.tests[item.nodeid] = {
            "seconds": round(time.perf_counter() - started, 3),
            "lines": None if item.get_closest_marker("fresh_process") else
            {name[len(prefix):]: sorted(lines) for name, lines in self.lines.items()}}


class Child:
    """One run (a mutant, or None: the control) of `tests` (node IDs, in order) in a child forked
    from the collecting session: it installs the mutant, runs the tests until the first failure,
    and writes what happened (with `trace`, also the lines of reference/ that each test executed:
    the result's "coverage"). Its output goes to a log file, so that polling never blocks."""

    def __init__(self, items: dict, mutant: Mutant | None, tests: list[str],
                 trace: bool = False):
        self.mutant = mutant
        self.scratch = tempfile.TemporaryDirectory(prefix="mutant-")
        directory = Path(self.scratch.name)
        write_engine(directory, mutant)  # for a test that starts the engine in a new process
        self.log, self.outcomes = directory / "log", directory / "outcomes.json"
        self.coverage = directory / "coverage.json"
        sys.stdout.flush()
        sys.stderr.flush()
        self.started = time.perf_counter()
        self.pid = os.fork()
        if self.pid == 0:  # the child never returns into the parent's code, whatever happens
            code = 3
            try:
                self._run([items[nodeid] for nodeid in tests], directory, trace)
                code = 0
            except BaseException:  # noqa: BLE001 - reported in the log, judged an error
                import traceback
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)

    def _run(self, items: list, directory: Path, trace: bool) -> None:
        os.setpgrp()  # a time-out kills the processes its tests started too
        descriptor = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(descriptor, 1)
        os.dup2(descriptor, 2)
        os.environ["PYTHONPATH"] = os.pathsep.join([str(directory), os.environ["PYTHONPATH"]])
        if self.mutant is not None:
            install(self.mutant.module, self.mutant.qualname, self.mutant.source,
                    self.mutant.def_line)
        outcomes = _Outcomes()
        if items:
            items[0].config.pluginmanager.register(outcomes)
        for index, item in enumerate(items):
            following = items[index + 1] if index + 1 < len(items) else None
            with outcomes.traced(item) if trace else contextlib.nullcontext():
                item.ihook.pytest_runtest_protocol(item=item, nextitem=following)
            if outcomes.failed:
                break
        self.outcomes.write_text(json.dumps(outcomes.failed))
        if trace:
            self.coverage.write_text(json.dumps(outcomes.tests))

    def poll(self) -> int | None:
        """The exit code once the run has ended, else None."""
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        return os.waitstatus_to_exitcode(status) if pid else None

    def stop(self) -> None:
        """End the run (a time-out), and whatever processes it started."""
        os.killpg(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)

    def result(self, returncode: int | None) -> dict:
        """What happened: killed (a test failed), timeout (the run or a test ran out of time: a
        hang, counted as killed), survived (every test passed), or error (the run broke off)."""
        seconds = time.perf_counter() - self.started
        output = self.log.read_text(errors="replace") if self.log.exists() else ""
        failed = json.loads(self.outcomes.read_text()) if self.outcomes.exists() else None
        coverage = json.loads(self.coverage.read_text()) if self.coverage.exists() else None
        self.scratch.cleanup()
        if returncode is None or failed and failed[0]["timeout"]:
            outcome = "timeout"
        elif returncode == 0 and failed is not None:
            outcome = "killed" if failed else "survived"
        else:
            outcome = "error"
        result = {"outcome": outcome, "seconds": round(seconds, 2), "returncode": returncode,
                  "killed_by": failed[0]["nodeid"] if failed else None}
        if outcome in ("error", "survived") or self.mutant is None:
            result["tail"] = "\n".join(output.splitlines()[-12:])
        if coverage is not None:
            result["coverage"] = coverage
        return result


def covering_tests(mutant: Mutant, coverage: dict) -> list[str]:
    """The tests that executed the mutant's site in the control run, quickest first. Only they
    can fail on it: under the derandomized `ci` profile a test that never reaches the site draws
    and computes exactly what it did in the control, and passes. A mutant no test reaches is
    reported `uncovered` (a survivor) without running it."""
    first, last = mutant.lines
    forward = mutant.area == "forward"
    reaching = [(test["seconds"], nodeid) for nodeid, test in coverage.items()
                if test["lines"] is None
                or any(first <= number <= last for number in test["lines"].get(mutant.file, ()))
                and not (forward and _TANGENT_LINE not in test["lines"].get("dual.py", ()))]
    return [nodeid for _, nodeid in sorted(reaching)]


def _tangent_line() -> int:
    """The line of dual.jvp that applies the rules (`total = ...`). A forward-mode rule shares
    its line with the forward that calls jvp, which every test of the op runs; only the tests
    that also ran this line computed a tangent, so only they can evaluate a rule."""
    jvp = _functions(_parse("dual.py"))["jvp"]
    return next(node.lineno for node in ast.walk(jvp) if isinstance(node, ast.Assign)
                and ast.unparse(node.targets[0]) == "total")


_TANGENT_LINE = _tangent_line()


class Killers:
    """Which tests have killed mutants of each function so far in a run. A mutant runs those
    first (the most kills first, then the rest quickest first): mutants of one function mostly
    fall to the same few tests, and `-x` stops a killed mutant at its first failing test. The
    order changes how long a run takes, not its outcome: a survivor runs every covering test."""

    def __init__(self):
        self.kills: Counter = Counter()

    def order(self, mutant: Mutant, tests: list[str]) -> list[str]:
        function = (mutant.file, mutant.qualname)
        return sorted(tests, key=lambda nodeid: -self.kills[function, nodeid])

    def record(self, mutant: Mutant, result: dict) -> None:
        if result["killed_by"]:
            self.kills[(mutant.file, mutant.qualname), result["killed_by"]] += 1


def schedule(runs: list[tuple], start, jobs: int, timeout: float, deadline: float | None = None,
             report=None) -> list[dict]:
    """Judge the (mutant, tests) pairs `jobs` at a time: `start(mutant, tests)` forks the run (a
    Child), from this one thread (forking is only safe from a single-threaded process); a run
    past `timeout` seconds is stopped (a timeout), and none starts after `deadline`
    (time.monotonic()): those are `not run`. `tests` may be a function of the mutant, asked when
    its run starts (see Killers)."""
    waiting, running, results = list(enumerate(runs)), {}, {}
    while waiting or running:
        while waiting and len(running) < jobs:
            index, (mutant, tests) = waiting.pop(0)
            if deadline and time.monotonic() > deadline:
                results[index] = {"outcome": "not run", "seconds": 0.0, "returncode": None,
                                  "killed_by": None}
                continue
            running[index] = start(mutant, tests(mutant) if callable(tests) else tests)
        for index, child in list(running.items()):
            returncode = child.poll()
            late = time.perf_counter() - child.started > timeout
            if returncode is None and not late:
                continue
            if returncode is None:
                child.stop()
            results[index] = child.result(returncode)
            del running[index]
            if report:
                report(runs[index][0], results[index])
        time.sleep(0.02)
    return [results[index] for index in range(len(runs))]


def load_equivalent(path: Path = EQUIVALENT_FILE, with_diffs: bool = False) -> dict:
    """The mutants judged equivalent: `ID | change | reason` lines (# starts a comment; an
    indented line continues the reason) as {ID: reason}, or {ID: (change, reason)}. The change
    (`before  ->  after`, as `show` prints it) lets tests/test_mutation.py notice an ID that names
    another change after an edit."""
    if not path.exists():
        return {}
    entries = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0].isspace() and entries:
            entries[-1][2] += " " + line.strip()
        else:
            entries.append([part.strip() for part in line.split(" | ", 2)])
    return {mutant_id: (change, reason) if with_diffs else reason
            for mutant_id, change, reason in entries}


def run_all(mutants: list[Mutant], args, items: dict, coverage: dict | None) -> list[dict]:
    """Judge every mutant: the ones no test of the control reached are `uncovered`, the others run
    the tests that reached them (every suite test without coverage), in a seeded random order so
    that a run cut short by `--budget` still samples every file; rows in generation order."""
    tests = {mutant.id: covering_tests(mutant, coverage) if coverage is not None else list(items)
             for mutant in mutants}
    uncovered = {mutant.id: {"outcome": "uncovered", "seconds": 0.0, "returncode": None,
                             "killed_by": None}
                 for mutant in mutants if not tests[mutant.id]}
    order = [mutant for mutant in mutants if mutant.id not in uncovered]
    random.Random(args.seed).shuffle(order)
    deadline = time.monotonic() + 60 * args.budget if args.budget else None
    killers, done = Killers(), Counter()

    def report(mutant, result):
        killers.record(mutant, result)
        done["n"] += 1
        print(f"[{done['n']}/{len(order)}] {result['outcome']:<8} {result['seconds']:6.1f}s "
              f"{mutant.id} ({len(tests[mutant.id])} tests)", flush=True)

    results = schedule([(mutant, lambda mutant: killers.order(mutant, tests[mutant.id]))
                        for mutant in order],
                       lambda mutant, chosen: Child(items, mutant, chosen), args.jobs,
                       args.timeout, deadline, report)
    by_id = {**uncovered, **{mutant.id: result for mutant, result in zip(order, results)}}
    return [_row(mutant, by_id[mutant.id], len(tests[mutant.id])) for mutant in mutants]


def _row(mutant: Mutant, result: dict, tests: int) -> dict:
    row = {"id": mutant.id, "site": mutant.site, "function": f"{mutant.file}:{mutant.qualname}",
           "operator": mutant.operator, "diff": mutant.diff, "lines": list(mutant.lines),
           "tests": tests}
    row.update(result)
    return row


# ----- results ------------------------------------------------------------------------------------
OUTCOMES = ("killed", "timeout", "survived", "uncovered", "equivalent", "error", "not run")


def summarise(rows: list[dict], equivalent: dict[str, str]) -> dict:
    """Counts and the score: (killed + timeout) / (judged - equivalent), where judged is every
    mutant but the ones a `--budget` left unrun, and uncovered ones count as survivors. An
    equivalent mutant is one listed with a reason that survived; a listed one that was killed is
    not equivalent."""
    for row in rows:
        if row["outcome"] in ("survived", "uncovered") and row["id"] in equivalent:
            row["outcome"], row["reason"] = "equivalent", equivalent[row["id"]]
        elif row["outcome"] in ("killed", "timeout") and row["id"] in equivalent:
            row["reason"] = "listed as equivalent, but killed: the list is wrong"
    counts = Counter(row["outcome"] for row in rows)
    judged = len(rows) - counts["not run"]
    detected = counts["killed"] + counts["timeout"]
    scored = judged - counts["equivalent"]
    return {"total": len(rows), "judged": judged, **{key: counts[key] for key in OUTCOMES},
            "score": round(detected / scored, 4) if scored else None}


def _table(rows: list[dict], key: str) -> list[str]:
    groups = sorted({row[key] for row in rows})
    shown = [outcome for outcome in OUTCOMES if any(row["outcome"] == outcome for row in rows)]
    lines = [f"| {key} | mutants | {' | '.join(shown)} |", "|---" * (len(shown) + 2) + "|"]
    for group in groups:
        counts = Counter(row["outcome"] for row in rows if row[key] == group)
        cells = " | ".join(str(counts[outcome]) for outcome in shown)
        lines.append(f"| {group} | {sum(counts.values())} | {cells} |")
    return lines


def write_results(rows: list[dict], summary: dict, meta: dict, markdown: Path,
                  json_path: Path) -> None:
    json_path.write_text(json.dumps({**meta, "summary": summary, "mutants": rows}, indent=1) + "\n")
    score = f"{100 * summary['score']:.1f}%" if summary["score"] is not None else "n/a"
    lines = [
        "# Mutation testing of the reference engine", "",
        f"Date: {meta['date']}  ", f"Command: `{meta['command']}`  ",
        f"Machine: {meta['cpus']} CPUs, `-j {meta['jobs']}`; wall time {meta['wall_s']:.0f} s "
        f"({meta['wall_s'] / 60:.1f} min), after a {meta['control_s']:.0f} s control run of the "
        "unmutated engine", "",
        f"One session, `{meta['session']}`, collects the suites; each mutant runs in a child "
        "forked from it, with the tests that executed its site in the control (every test where "
        "coverage was off), those that killed other mutants of its function first, then the "
        "quickest first, until the first failure.", "",
        f"Mutants: {meta['generated']} generated, {summary['total']} selected, "
        f"{summary['judged']} judged; killed {summary['killed']}, "
        f"timed out {summary['timeout']} (counted as killed), survived {summary['survived']}, "
        f"uncovered {summary['uncovered']} (survivors: the control run never executes their "
        f"site{'' if meta['coverage'] else '; coverage was off'}), equivalent "
        f"{summary['equivalent']}, errors {summary['error']}, not run {summary['not run']}.", "",
        f"**Score = (killed + timeout) / (judged - equivalent) = {score}**", "",
    ]
    lines += _timing(rows)
    lines += ["## Per operator", ""] + _table(rows, "operator")
    lines += ["", "## Per function", ""] + _table(rows, "function")
    by_outcome = {outcome: [row for row in rows if row["outcome"] == outcome]
                  for outcome in OUTCOMES}
    wrongly = [row for row in rows if row.get("reason", "").startswith("listed as equivalent")]
    lines += _listing(by_outcome["survived"], "Survivors (findings: not equivalent, not killed)")
    lines += _listing(by_outcome["uncovered"],
                      "Uncovered (findings: no test executes the mutated code)")
    lines += _listing(by_outcome["equivalent"],
                      "Equivalent mutants (scripts/mutation_equivalent.txt)")
    lines += _listing(by_outcome["error"],
                      "Errors (the run did not complete: not counted as killed)")
    lines += _listing(wrongly, "Listed as equivalent but killed")
    markdown.write_text("\n".join(lines) + "\n")


def _timing(rows: list[dict]) -> list[str]:
    """Median and max seconds of killed and of surviving mutants: a killed one stops at its first
    failing test, a survivor runs every suite module."""
    lines = []
    for label, outcomes in (("killed", ("killed",)), ("survivor", ("survived", "equivalent"))):
        seconds = sorted(row["seconds"] for row in rows if row["outcome"] in outcomes)
        if seconds:
            lines.append(f"Seconds per {label} mutant: median {seconds[len(seconds) // 2]:.1f}, "
                         f"max {seconds[-1]:.1f} ({len(seconds)} mutants).  ")
    return lines + [""] if lines else []


def _listing(chosen: list[dict], title: str) -> list[str]:
    if not chosen:
        return []
    lines = ["", f"## {title}", ""]
    for row in chosen:
        extra = f" ({row['reason']})" if row.get("reason") else ""
        lines.append(f"- `{row['id']}` {row['site']}: `{row['diff']}`{extra}")
    return lines


# ----- command line -------------------------------------------------------------------------------
def _select(mutants: list[Mutant], ids: list[str], sample: int | None, seed: int) -> list[Mutant]:
    if ids:
        by_id = {mutant.id: mutant for mutant in mutants}
        unknown = [mutant_id for mutant_id in ids if mutant_id not in by_id]
        if unknown:
            raise SystemExit(f"unknown mutants: {unknown}")
        return [by_id[mutant_id] for mutant_id in ids]
    if sample is not None and sample < len(mutants):
        chosen = set(random.Random(seed).sample(range(len(mutants)), sample))
        return [mutant for index, mutant in enumerate(mutants) if index in chosen]
    return mutants


def cmd_list(args) -> int:
    mutants = generate()
    if args.ids:
        for mutant in mutants:
            print(mutant.id)
        return 0
    for key in ("operator", "file"):
        counts = Counter(getattr(mutant, key) for mutant in mutants)
        print(f"{key}:")
        for name, count in sorted(counts.items()):
            print(f"  {name:<28} {count}")
    print(f"total: {len(mutants)} mutants in {len(targets())} functions")
    return 0


def cmd_show(args) -> int:
    by_id = {mutant.id: mutant for mutant in generate()}
    for mutant_id in args.ids:
        mutant = by_id[mutant_id]
        print(f"{mutant.id}\n  {mutant.site} ({mutant.qualname}): {mutant.diff}\n")
        print(textwrap.indent(mutant.source, "    "), "\n")
    return 0


def _control(args, items: dict) -> tuple[dict, dict | None]:
    """The unmutated engine's run of every test (split among `--jobs` children), and the lines
    of reference/ each test executed (None: not traced)."""
    if args.no_control:
        return {"outcome": "survived", "seconds": 0.0}, None
    trace = not args.no_coverage
    parts = [(None, list(items)[part::args.jobs]) for part in range(args.jobs)]
    results = schedule(parts, lambda mutant, tests: Child(items, mutant, tests, trace),
                       args.jobs, max(args.timeout, CONTROL_TIMEOUT))
    control = next((result for result in results if result["outcome"] != "survived"),
                   {"outcome": "survived", "seconds": max(r["seconds"] for r in results)})
    coverage = {nodeid: test for result in results
                for nodeid, test in result.get("coverage", {}).items()}
    return control, coverage if trace else None


def cmd_run(args) -> int:
    generated = generate()
    mutants = _select(generated, args.ids, args.sample, args.seed)

    def work(items: dict):
        """In the session, once the suites are collected: the control, then the mutants."""
        control, coverage = _control(args, items)
        print("control skipped" if args.no_control else
              f"control (unmutated engine): {control['outcome']} in {control['seconds']:.1f}s",
              flush=True)
        if control["outcome"] != "survived":
            print("the suites do not pass on the unmutated engine; no mutant can be judged:\n"
                  + control.get("tail", ""))
            return None
        started = time.perf_counter()
        rows = run_all(mutants, args, items, coverage)
        return control, coverage is not None, rows, time.perf_counter() - started

    collected = Collected(work)
    for name in ("AUTOGRAD_ENGINE", "PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS",
                 "PYTEST_XDIST_TESTRUNUID"):
        os.environ.pop(name, None)
    with tempfile.TemporaryDirectory(prefix="mutation-engine-") as directory:
        write_engine(Path(directory), None)  # the session's engine: the control's
        sys.path[:0] = [directory, str(ROOT)]
        os.environ["PYTHONPATH"] = os.pathsep.join(
            filter(None, [directory, str(ROOT), os.environ.get("PYTHONPATH")]))
        pytest.main(pytest_args(args.test_timeout, args.keyword), plugins=[collected])
    if collected.result is None:
        return 2
    control, traced, rows, wall = collected.result
    summary = summarise(rows, load_equivalent())
    meta = {"date": datetime.date.today().isoformat(), "command": " ".join(["python"] + sys.argv),
            "generated": len(generated), "cpus": os.cpu_count(), "jobs": args.jobs,
            "wall_s": round(wall, 1), "control_s": control["seconds"], "coverage": traced,
            "session": " ".join(["python -m pytest",
                                 *pytest_args(args.test_timeout, args.keyword)])}
    write_results(rows, summary, meta, Path(args.markdown), Path(args.json))
    print(json.dumps(summary), f"wall {wall:.0f}s", f"-> {args.markdown}, {args.json}")
    return 0 if summary["survived"] == summary["uncovered"] == summary["error"] == 0 else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="count the mutants per operator and file")
    listing.add_argument("--ids", action="store_true", help="print every mutant's id instead")
    show = commands.add_parser("show", help="print mutants' changes and mutated functions")
    show.add_argument("ids", nargs="+")
    run = commands.add_parser("run", help="run the suites against mutants, write the results")
    run.add_argument("ids", nargs="*", help="mutants to run (default: all)")
    run.add_argument("-j", "--jobs", type=int, default=2)
    run.add_argument("--sample", type=int, help="run a seeded random sample of this many")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--budget", type=float, metavar="MINUTES",
                     help="start no mutant after this long; the rest are reported as not run")
    run.add_argument("--timeout", type=float, default=300,
                     help="seconds before a mutant's whole run is stopped (a timeout)")
    run.add_argument("--test-timeout", type=float, default=30,
                     help="seconds before one test is stopped by the harness (a timeout)")
    run.add_argument("-k", dest="keyword", metavar="EXPRESSION",
                     help="only the suite tests that match (pytest's -k): a quicker, weaker run")
    run.add_argument("--no-control", action="store_true",
                     help="skip the control run (quick checks only: trusts the suites to pass; "
                          "no coverage, so every mutant runs every test)")
    run.add_argument("--no-coverage", action="store_true",
                     help="run the mutants the control never reached too (they must survive)")
    run.add_argument("--markdown", default=str(RESULTS_MD))
    run.add_argument("--json", default=str(RESULTS_JSON))
    args = parser.parse_args(argv)
    return {"list": cmd_list, "show": cmd_show, "run": cmd_run}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
