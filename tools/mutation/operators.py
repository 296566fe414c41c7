"""The mutation operators: each takes a `Site` and yields the replacement builders of its node (a
builder takes the site's node *in a copy of the def* and returns the node that replaces it)."""

from __future__ import annotations

import ast

from tools.mutation.targets import CHECKED, ORDERED

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


# The plumbing operators' helpers, expressions too: the elements of an iterable unique by the
# identity of `key(element)` (None and numbers, which Python shares, never dropped), in order, the
# first of each kept; the first two of a list swapped.
_UNIQUE = ("(lambda it, key=lambda v: v: (lambda xs: [v for i, v in enumerate(xs) "
           "if isinstance(key(v), (type(None), bool, int, float, complex, str)) "
           "or not any(key(w) is key(v) for w in xs[:i])])(list(it)))")
_SWAP = "(lambda xs: xs[1::-1] + xs[2:])"
_SHOWN = {_F32: "f32", _UNIQUE: "unique", _SWAP: "swap_first_two"}


def readable(node: ast.AST) -> str:
    """The node's code, the helpers' lambdas shown by name (`f32`, `unique`, `swap_first_two`)."""
    code = ast.unparse(node)
    for helper, name in _SHOWN.items():
        code = code.replace(f"({ast.unparse(ast.parse(helper, mode='eval'))})(", f"{name}(")
    return code


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


def _call(function: str, *args: ast.AST) -> ast.Call:
    return ast.Call(ast.parse(function, mode="eval").body, list(args), [])


def _listed(node: ast.AST) -> ast.Call:
    return _call("list", node)


def reverse_order(site):
    """for x in xs -> for x in reversed(list(xs)), in comprehensions too: hooks run, values
    saved, outputs or inputs handled last to first."""
    if site.iterated == ORDERED:
        yield lambda n: _call("reversed", _listed(n))


def first_only(site):
    """xs -> list(xs)[:1]: only the first hook, saved value, root or output handled."""
    if site.iterated:
        yield lambda n: ast.Subscript(_listed(n), ast.Slice(None, ast.Constant(1)), ast.Load())


def drop_last(site):
    """xs -> list(xs)[:-1]: a loop stopped one early, its last element never handled."""
    if site.iterated:
        yield lambda n: ast.Subscript(_listed(n), ast.Slice(None, ast.Constant(-1)), ast.Load())


def swap_first_two(site):
    """for x in xs: the first two elements of xs swapped (where it has two), the rest in order:
    the first two hooks run in each other's place. Loops only: in a comprehension that builds a
    list by position it is reverse_order's misplacement again."""
    if site.iterated == ORDERED and site.loop:
        yield lambda n: _call(_SWAP, _listed(n))


def dedupe(site):
    """xs -> its elements unique by identity, in order: a tensor used twice (x * x, an input or
    root listed twice) or a hook registered twice handled once. In zip(xs, ...) and enumerate(xs)
    the elements of xs are compared. A loop that calls each element (the hook loops) then calls
    it once per distinct hook: this is the call once per unique bug of those loops."""
    if site.iterated and site.iterated != CHECKED and site.key is not None:
        yield lambda n: _call(_UNIQUE, n, *([_key(site.key)] if site.key else []))


def _key(path: tuple) -> ast.Lambda:
    """lambda v: v[i][j]... for path (i, j, ...)."""
    element = "v" + "".join(f"[{i}]" for i in path)
    return ast.parse(f"lambda v: {element}", mode="eval").body


def pack_once(site):
    """A comprehension that packs each saved tensor (`Packed(hooks, value) for value in values`)
    packs once per distinct tensor and reuses the result: x * x packs x once for both slots (the
    call once per unique bug where a loop's element is an argument, not the callee)."""
    if site.packs:
        yield _memoized


def _memoized(n):
    """(f(v) for v in xs) -> (memo[id(v)] if id(v) in memo else memo.setdefault(id(v), f(v))
    for memo in [{}] for v in xs)."""
    name = n.generators[0].target.id
    key = f"id({name})"
    element = ast.parse(f"_memo[{key}] if {key} in _memo else _memo.setdefault({key}, None)",
                        mode="eval").body
    element.orelse.args[1] = n.elt
    memo = ast.comprehension(ast.Name("_memo", ast.Store()), ast.parse("[{}]", mode="eval").body,
                             [], 0)
    return type(n)(element, [memo, *n.generators])


OPERATORS = (sign_flip, drop_term, drop_factor, swap_operands, remove_transpose, reduction_axis,
             skip_sum_to, skip_helper, off_by_one, float32, accumulate_to_assign, comparison_flip,
             negate_condition, constant_change, delete_statement,
             # the plumbing operators: loops that iterate wrongly
             reverse_order, first_only, drop_last, swap_first_two, dedupe, pack_once)

