"""What is mutated: the functions of the reference engine whose bugs give wrong gradients or a
wrong graph (`targets`), and the nodes of their bodies that an operator may change (`sites`)."""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout
REFERENCE = ROOT / "reference"
PACKAGE = "autograd_conformance.reference"  # reference/, as the engine imports it

# ----- targets: the functions that are mutated ---------------------------------------------------
# The gradient plumbing outside ops/: qualnames of the functions whose bugs give wrong gradients
# or a wrong graph. Messages (_modified_message), names and warnings are left alone.
PLUMBING = {
    "graph.py": ("Node.__init__", "Node.needs_grad", "Node.save", "Node.saved", "Node._unpack",
                 "AccumulateGrad.backward", "accumulate_into", "recording", "record",
                 "input_node", "grad_accumulator", "edge", "Packed.unpacked"),
    # grad mode, per thread and across a decorated generator's yields (THR-1, MODE-16)
    "grad_mode.py": ("_Mode.__enter__", "_Mode.__exit__", "_Mode.__call__",
                     "_Mode._generator_in_mode"),
    # saved tensors: mutation allowed on them (SAV-12), a pack hook's in-place change (SAV-10)
    "saved.py": ("pack_checked", "_SavedMutation.register", "_SavedMutation.before_write",
                 "_keep_copies"),
    # activation checkpointing: the recomputation and its random state (CKPT-*)
    "utils/checkpoint.py": ("checkpoint", "_replaying", "_detached", "_Recomputation.pack",
                            "_Recomputation.unpack", "_Recomputation._recompute",
                            "CheckpointFunction.forward", "CheckpointFunction.backward"),
    # jacobian(strategy="forward-mode") (FUNC-9)
    "autograd/forward_jacobian.py": ("jacobian", "_jvp", "_tangent_of"),
    "walk.py": ("_count_dependents", "_leading_to", "_arrive", "run_backward",
                "_run_tensor_hooks", "_store_retained"),
    "autograd/gradients.py": ("_root_grads", "_root_edges", "_for_output", "backward",
                              "_accumulator_of", "grad", "_capture"),
    "autograd/function.py": ("FunctionBackward.__init__", "FunctionBackward.backward",
                             "FunctionBackward._incoming", "FunctionBackward._checked",
                             "Function.apply", "_run_forward", "_attach", "_as_output",
                             "_forward_tangents"),
    "ops/views.py": ("View.follow_base", "positions_in_base", "view_of"),
    "ops/inplace.py": ("_rebase",),
    # forward-mode AD: tangents, levels and duals (the ops' own rules: `_forward_targets`)
    "dual.py": ("tangent", "set_tangent", "jvp"),
    "autograd/forward_ad.py": ("dual_level.__enter__", "dual_level.__exit__", "make_dual",
                               "unpack_dual"),
    # hooks on tensors, nodes and modules, and anomaly mode's NaN check
    "hooks.py": ("RemovableHandle.remove", "HookDict.add", "SavedTensorHooks.current"),
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
# computes the keepdim shape that SumBackward1 and MeanBackward1 reshape their gradient to, and
# the forward of max(dim) and min(dim) picks the index that gets the gradient (OP-11).
OPS_EXTRA = {"reductions.py": ("_kept_shape",), "extrema.py": ("_along",)}


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


def tangent_line() -> int:
    """The line of dual.jvp that applies the rules (`total = ...`). A forward-mode rule shares
    its line with the forward that calls jvp, which every test of the op runs; only the tests
    that also ran this line computed a tangent, so only they can evaluate a rule."""
    jvp = _functions(_parse("dual.py"))["jvp"]
    return next(node.lineno for node in ast.walk(jvp) if isinstance(node, ast.Assign)
                and ast.unparse(node.targets[0]) == "total")


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
    iterated: str | None = None  # what iterating it decides (`_iterations`)
    loop: bool = False  # the iterable of a `for` statement (not of a comprehension)
    key: tuple | None = ()  # where an element's identity is: (1,) in enumerate(xs), (0,) in
    #                         zip(xs, ys); None: no element is another's (`_identity`)
    packs: bool = False  # a comprehension that packs each of its elements (`_packing`)


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
    iterated = _iterations(target) if target.area == "plumbing" else {}
    packing = _packing(target.node) if target.area == "plumbing" else set()
    fresh = _fresh(target.node)
    loops = {id(node.iter) for node in ast.walk(target.node) if isinstance(node, ast.For)}
    rules = {id(rule.body) for rule in _rules(target.node)} if target.area == "forward" else set()
    returned |= rules
    arrays |= rules

    def visit(node, path, inside=not rules):
        if _skipped(node):
            return
        inside = inside or id(node) in rules
        if inside:
            yield Site(node, path, id(node) in returned, id(node) in arrays, id(node) in indices,
                       iterated.get(id(node)), id(node) in loops, _identity(node, fresh),
                       id(node) in packing)
        for step, child in _children(node):
            yield from visit(child, path + (step,), inside)

    for step, stmt in _body(target.node):
        yield from visit(stmt, (step,))



# ----- iterations: the loops and comprehensions of the plumbing (the plumbing operators) ---------
ORDERED = "ordered"      # order and multiplicity matter: hooks, saved values, outputs in order
UNORDERED = "unordered"  # each element counts, their order does not
CHECKED = "checked"      # only whether every element passes: a validation, any(), a set
_ONLY_WHETHER = ("any", "all", "set", "frozenset", "min", "max", "sorted")
_ONLY_HOW_MANY = ("sum",)
# The files whose loops the plumbing operators change: the walk, hooks, saved tensors, custom
# Functions, the functional API and forward mode.
ITERATION_FILES = ("walk.py", "graph.py", "saved.py", "hooks.py", "node_hooks.py",
                   "module_hooks.py", "autograd/function.py", "autograd/gradients.py",
                   "autograd/forward_jacobian.py", "dual.py", "autograd/forward_ad.py")
# Iterables whose iteration decides less than their code shows, (file, qualname, iterable) ->
# (kind, why); None: left alone.
_JUDGED = {
    ("walk.py", "_count_dependents", "stack.pop().next_functions"): (
        UNORDERED, "edges are counted"),
    ("walk.py", "_leading_to", "roots"): (
        UNORDERED, "a post-order walk of a DAG marks the same needed nodes from any root order"),
    ("walk.py", "_leading_to", "children"): (
        None, "an iterator the walk resumes: listing it in full would end the node's walk"),
    ("walk.py", "run_backward", "zip(roots, grads)"): (
        UNORDERED, "the roots' gradients are summed per node, the ready heap orders the nodes"),
    ("saved.py", "_SavedMutation.before_write", "list(self.nodes or ())"): (
        UNORDERED, "a WeakSet: no order"),
    ("saved.py", "_keep_copies", "enumerate(saved)"): (
        UNORDERED, "each slot is replaced at its own index"),
    ("autograd/gradients.py", "backward", "inputs"): (
        CHECKED, "grouped into a dict of lookups, by node and tensor id: repeats are one entry"),
    ("autograd/gradients.py", "backward", "by_node.items()"): (
        CHECKED, "a dict of lookups by node, one entry per node"),
    ("autograd/gradients.py", "grad", "edges"): (
        CHECKED, "a dict of lookups by node, one entry per node"),
    ("autograd/function.py", "_attach",
     "[out for out in tensors if any((out is s for s in saved))]"): (
        CHECKED, "`_saved_outputs` is only searched (`produced`)"),
    ("module_hooks.py", "_through_node", "enumerate(zip(positions, tensors))"): (
        UNORDERED, "each tensor is wrapped at its own position"),
    ("module_hooks.py", "_spread", "zip(positions, grads)"): (
        UNORDERED, "each gradient is put at its own position"),
    ("autograd/forward_jacobian.py", "jacobian", "enumerate(inputs)"): (
        UNORDERED, "each input's columns go to their own list"),
    ("autograd/forward_jacobian.py", "jacobian", "enumerate(tangents)"): (
        UNORDERED, "each output's columns go to their own list"),
}


def _iterations(target: Target) -> dict[int, str]:
    """ids of the iterables of the target's `for` loops and comprehensions, with what their
    iteration decides: CHECKED for a validation loop or a comprehension that any(), all() or a set
    consumes, UNORDERED where only their elements count (`_ORDER_FREE`, sum(), a comprehension
    that uses no element), else ORDERED. Left out: range(...) and literals (the index mutants of
    off_by_one already change them, and fixed pairs have no meaningful order), `_NOT_ITERATED`."""
    if target.file not in ITERATION_FILES:
        return {}
    found, consumers = {}, _consumers(target.node)
    for node in ast.walk(target.node):
        if isinstance(node, ast.For):
            checks = _only_checks(node.body, _bound(node.target)) \
                and not _carried(node, target.node)
            kind = CHECKED if checks else ORDERED
            found[id(node.iter)] = _kind(target, node.iter, node, kind)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            kind = CHECKED if isinstance(node, ast.SetComp) else consumers.get(id(node), ORDERED)
            for generator in node.generators:
                used = kind if _uses_target(node, generator) else UNORDERED
                found[id(generator.iter)] = _kind(target, generator.iter, node, used)
    for local, comprehension in _locals(target.node).items():  # `saved = [...]` searched only
        reads = [id(n) for n in ast.walk(target.node) if isinstance(n, ast.Name)
                 and n.id == local and isinstance(n.ctx, ast.Load)]
        if reads and all(found.get(read) == CHECKED for read in reads):
            for generator in comprehension.generators:
                found[id(generator.iter)] = found[id(generator.iter)] and CHECKED
    return {key: kind for key, kind in found.items() if kind}


def _kind(target: Target, iterable: ast.AST, loop: ast.AST, kind: str) -> str | None:
    """The kind of an iteration, as `_JUDGED` names it by its iterable's code or, where that is
    ambiguous, its comprehension's."""
    if _called(iterable) == "range" \
            or isinstance(iterable, (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Constant)):
        return None
    judged = [_JUDGED[where] for where in ((target.file, target.qualname, ast.unparse(iterable)),
                                           (target.file, target.qualname, ast.unparse(loop)))
              if where in _JUDGED]
    if judged:
        judged = judged[0][0]
        return judged and (CHECKED if CHECKED in (kind, judged) else judged)
    return kind


def _locals(func: ast.FunctionDef) -> dict[str, ast.AST]:
    """The locals assigned a comprehension once (`saved = [... for value in ctx._saved]`)."""
    assigned = [node for node in ast.walk(func) if isinstance(node, ast.Assign)
                and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)]
    names = Counter(node.targets[0].id for node in assigned)
    return {node.targets[0].id: node.value for node in assigned if names[node.targets[0].id] == 1
            and isinstance(node.value, (ast.ListComp, ast.GeneratorExp))}


def _consumers(func: ast.FunctionDef) -> dict[int, str]:
    """ids of the comprehensions that any(), all(), set(), sum(), ... consume, with the kind of
    iteration that leaves them."""
    found = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and len(node.args) == 1 and _called(node) in \
                _ONLY_WHETHER + _ONLY_HOW_MANY:
            found[id(node.args[0])] = CHECKED if _called(node) in _ONLY_WHETHER else UNORDERED
    return found


def _bound(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _uses_target(comprehension: ast.AST, generator: ast.comprehension) -> bool:
    """Whether the comprehension reads a name its generator binds (`[[] for _ in xs]` does not:
    only the number of elements counts)."""
    bound = _bound(generator.target)
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in bound
               for n in ast.walk(comprehension))


def _only_checks(body: list, bound: set[str]) -> bool:
    """A loop body that only raises, returns a constant or skips (a validation, an any()), after
    assignments to locals, and never calls an element (`bound`, the loop's names: a hook): that
    every element passes is all that counts, not their order or number."""
    for stmt in body:
        if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in bound
               for n in ast.walk(stmt.test if isinstance(stmt, ast.If) else stmt)):
            return False
        if isinstance(stmt, ast.If):
            if not (_only_checks(stmt.body, bound) and _only_checks(stmt.orelse, bound)):
                return False
        elif isinstance(stmt, ast.Return):
            if not isinstance(stmt.value, ast.Constant):
                return False
        elif isinstance(stmt, ast.Assign):
            if not all(isinstance(t, ast.Name) for t in stmt.targets):
                return False
        elif not isinstance(stmt, (ast.Raise, ast.Continue, ast.Break, ast.Pass)):
            return False
    return True


def _carried(loop: ast.For, func: ast.FunctionDef) -> bool:
    """Whether a name the loop's body assigns is read after the loop or, in the body, above its
    assignment (`grads = hook(grads)`): a value carried from element to element or out."""
    assigned = {}
    for stmt in loop.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                assigned.setdefault(node.id, node.lineno)
    inside = {id(node) for node in ast.walk(loop)}
    return any(isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in assigned
               and (id(node) not in inside or node.lineno < assigned[node.id])
               for node in ast.walk(func))


def _identity(iterable: ast.AST, fresh: set[str]) -> tuple | None:
    """Where an element's identity is, as dedupe compares them: the element itself, its value in
    enumerate(xs) (1), the first sequence's in zip(xs, ...) (0), nested; None where the elements
    are tuples or lists the function built (`_fresh`), never one object twice."""
    if _called(iterable) == "enumerate" and iterable.args:
        inner = _identity(iterable.args[0], fresh)
        return None if inner is None else (1,) + inner
    if _called(iterable) == "zip" and iterable.args:
        inner = _identity(iterable.args[0], fresh)
        return None if inner is None else (0,) + inner
    return None if isinstance(iterable, ast.Name) and iterable.id in fresh else ()


def _fresh(func: ast.FunctionDef) -> set[str]:
    """The locals only ever assigned a comprehension of new tuples or lists."""
    values = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            for name in node.targets:
                if isinstance(name, ast.Name):
                    values.setdefault(name.id, []).append(node.value)
    built = (ast.Tuple, ast.List, ast.ListComp)
    return {name for name, assigned in values.items()
            if all(isinstance(v, (ast.ListComp, ast.GeneratorExp)) and isinstance(v.elt, built)
                   for v in assigned)}


_PACK_CALLS = ("Packed", "pack_checked")  # calls that pack a saved tensor


def _packing(func: ast.FunctionDef) -> set[int]:
    """ids of the comprehensions of one generator whose element packs its element (`Packed(hooks,
    value) ... for value in values`): the pack once per tensor mutant's sites."""
    found = set()
    for node in ast.walk(func):
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1 \
                and isinstance(node.generators[0].target, ast.Name):
            name = node.generators[0].target.id
            if any(_called(call) in _PACK_CALLS and any(ast.unparse(a) == name for a in call.args)
                   for call in ast.walk(node.elt)):
                found.add(id(node))
    return found
