"""What is mutated: the functions of the reference engine whose bugs give wrong gradients or a
wrong graph (`targets`), and the nodes of their bodies that an operator may change (`sites`)."""

from __future__ import annotations

import ast
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

