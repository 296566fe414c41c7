"""Hypothesis strategies shared by every suite: shapes, leaves, random programs, cotangents.

`programs()` generates small computation DAGs. Each op is chosen only where it is smooth and well
conditioned on the values it will see (the ops' `domain`: no log near 0, no division by small
numbers, no relu near its kink, no overflow), because the float64 finite-difference oracle is only
trustworthy there. The check runs on the values as the program is drawn, so no example is thrown
away (`assume` is never called) and hypothesis' health checks stay quiet. Nodes pick their inputs
among all earlier variables (a unary op among those inside its domain), so diamonds and shared
subexpressions are common, and binary ops pick broadcast-compatible partners, creating a new
broadcasting leaf when none exists.
"""

from __future__ import annotations

import functools
import math
import random

import numpy as np
from hypothesis import event
from hypothesis import strategies as st

from .counts import VIEW_CHAIN, counts
from .ops import (
    DIV_MIN,
    KINK_MARGIN,
    LOG_MIN,
    MAGNITUDE_MAX,
    OPS,
    SATURATION_MAX,
    SQRT_MIN,
    has_ties,
    in_pow_base_range,
    near_ties_removed,
)
from .program import Leaf, Node, Program

LEAF_BOUND = 3.0
DIM_SIZES = st.integers(1, 3)
MAX_DIMS = 4        # 0-D to 4-D tensors
MAX_NUMEL = 24      # elements per tensor: 4-D shapes stay small enough for slow engines
LONG_PROGRAM_OPS = 16
# How a binary elementwise op's operands relate, drawn uniformly from this list.
BROADCASTING = ("second broadcast", "same shape", "second broadcast", "first broadcast",
                "first broadcast")  # a broadcast first: hypothesis often draws the first choice
ARITHMETIC = ("add", "sub", "mul", "div")
ELEMENTWISE_BINARY = ARITHMETIC + ("pow_tensor",)  # the binary ops that broadcast
POWERS = ("pow", "pow_tensor", "rpow")
# The unary ops without parameter (the integer power `pow` has one), in two families.
UNARY_FUNCTIONS = ("exp", "log", "tanh", "sigmoid", "relu")
UNARY_ARITHMETIC = ("neg", "abs", "sqrt", "clone")
UNARY = UNARY_FUNCTIONS + UNARY_ARITHMETIC
REDUCTIONS = ("sum", "mean")
VECTOR_PRODUCTS = ("mv", "dot")     # `@` with a 1-D second operand
SHAPING = ("reshape", "transpose", "index")  # views of their input
ALL_OPS = (ARITHMETIC + POWERS + UNARY + REDUCTIONS + ("matmul",) + VECTOR_PRODUCTS + SHAPING
           + ("index_list",))
CURVED_OPS = ("mul", "div", "pow", "pow_tensor", "rpow", "exp", "log", "tanh", "sigmoid",
              "sqrt")  # nonzero second derivatives
NON_SAVING_OPS = tuple(name for name in ALL_OPS if not OPS[name].saves_tensors)
# max, min (of every element, and along a dim: `max_dim`), amax and amin: outside the core op set.
# A program draws them only where its test asks for them (`ops=ALL_OPS + EXTREMA`) and the engine
# declares the capability `max_min` (engine_ops), often on a fresh leaf whose values tie.
EXTREMA = ("amax", "amin", "max", "min", "max_dim", "min_dim")
EVEN_SPLIT = ("amax", "amin", "max", "min")   # a tie shares the gradient (OP-9, OP-10)
OP_CAPABILITIES = {op: "max_min" for op in EXTREMA}
TIE_VALUES = (-1.5, 0.5, 2.0)  # exact in every dtype: a tie drawn is a tie in the engine too
TIE_FEATURES = ("tie split evenly (amax, amin, max(), min())",   # `reach` features, outside REACH
                "tie sent to the returned index (max(dim), min(dim))")


@functools.cache
def sampled(options: tuple) -> st.SearchStrategy:
    """st.sampled_from(options), built once per tuple of options. Drawing from a new strategy
    object makes hypothesis validate it and work out its properties again, which costs more
    than the draw: the strategies drawn from for every example are built once."""
    return st.sampled_from(options)


def float_dtypes(engine) -> st.SearchStrategy[str]:
    """The float dtypes `engine` supports."""
    return sampled(("float32", "float64") if engine.has("float64") else ("float32",))


def engine_ops(engine, ops=ALL_OPS) -> tuple[str, ...]:
    """`ops` without those the engine declares missing (its adapter's `missing_ops`), those set
    aside because they failed their own verdict, or whose capability it does not declare
    (OP_CAPABILITIES): random programs judge every behaviour on the engine's own sound ops, never
    on one composed of others. A program drawn without a set-aside op it could have drawn is
    noted in JUDGED_WITHOUT."""
    JUDGED_WITHOUT.update(engine.set_aside_ops.intersection(ops))
    return tuple(op for op in ops if op not in engine.unavailable_ops
                 and engine.has(OP_CAPABILITIES.get(op, "core")))


# The set-aside ops that random programs drawn in this process left out; the runner empties it
# before each test and reads it after, so that a behaviour judged without them says so.
JUDGED_WITHOUT: set[str] = set()


def widest_float_dtype(engine) -> str:
    """float64 where `engine` has it (a gradient rounded through float32 shows), else float32."""
    return "float64" if engine.has("float64") else "float32"


@functools.cache   # one strategy object per arguments (see `sampled`); the same below
@st.composite
def shapes(draw, min_dims: int = 0, max_dims: int = MAX_DIMS) -> tuple[int, ...]:
    """Shapes of `min_dims` to `max_dims` dims (each rank about equally likely) of 1 to 3
    elements each, at most MAX_NUMEL elements in all. 0-dim comes last among the ranks: hypothesis
    often draws (and shrinks to) the first, and a 0-dim tensor broadcasts only one way."""
    ranks = sorted(range(min_dims, max_dims + 1), key=lambda rank: rank == 0)
    rank = draw(sampled(tuple(ranks)), label="rank")
    shape: list[int] = []
    for _ in range(rank):
        room = MAX_NUMEL // _numel(tuple(shape)) if shape else MAX_NUMEL
        shape.append(draw(st.integers(1, max(1, min(3, room // 2 ** (rank - len(shape) - 1)))),
                          label="size"))
    return tuple(shape)


def _numel(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


@functools.cache
@st.composite
def broadcastable_shape(draw, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts with `shape` to `shape`: one dim of size > 1 (where there is one)
    set to 1 at a position drawn uniformly, some other dims set to 1, leading dims before it
    dropped."""
    wide = [dim for dim in range(len(shape)) if shape[dim] > 1]
    stretched = draw(sampled(tuple(wide)), label="stretched dim") if wide else len(shape)
    offset = draw(st.integers(0, stretched), label="dropped leading dims")
    return tuple(1 if dim == stretched or draw(st.booleans(), label="size 1") else shape[dim]
                 for dim in range(offset, len(shape)))


@functools.cache
@st.composite
def expanding_shape(draw, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that `shape` broadcasts to: leading dims added, some of its size-1 dims stretched
    (so that the first operand of a binary op is the one broadcast)."""
    lead = draw(st.lists(DIM_SIZES, max_size=MAX_DIMS - len(shape)), label="added leading dims")
    body = tuple(draw(DIM_SIZES, label="stretched size") if size == 1 else size
                 for size in shape)
    expanded = tuple(lead) + body
    return expanded if _numel(expanded) <= MAX_NUMEL else shape


@functools.cache
def values(shape: tuple[int, ...], dtype: str, bound: float = LEAF_BOUND) -> st.SearchStrategy:
    """Arrays of `shape` with finite values in [-bound, bound], exact in `dtype`, as float64.
    Either every element is a float as hypothesis draws them (zeros, tiny and round numbers, the
    edges; a failure shrinks to these), or every element is a moderate one with every bit of the
    dtype's mantissa set at random: with only round numbers, sums and products are exact in
    float32 as well, and an engine that rounds a float64 gradient through float32 would pass.
    The full-mantissa array comes from one drawn seed, not a draw per element: drawing is most
    of the run's time. (Cached: hypothesis validates each new strategy object, which costs more
    than drawing.)"""
    count = _numel(shape)
    width = 32 if dtype == "float32" else 64
    drawn = st.lists(st.floats(-bound, bound, width=width, allow_subnormal=False),
                     min_size=count, max_size=count)
    return st.one_of(drawn.map(lambda flat: np.asarray(flat, np.float64).reshape(shape)),
                     full_precision_values(shape, dtype, bound))


@functools.cache
def tied_values(shape: tuple[int, ...]) -> st.SearchStrategy:
    """Arrays of `shape` whose elements are drawn from TIE_VALUES: a slice's max or min is often
    shared, so the tie rules of max, min, amax and amin come up (OP-9, OP-10, OP-11)."""
    count = _numel(shape)
    return st.lists(sampled(TIE_VALUES), min_size=count, max_size=count).map(
        lambda flat: np.asarray(flat, np.float64).reshape(shape))


@functools.cache
def full_precision_values(shape: tuple[int, ...], dtype: str,
                          bound: float = LEAF_BOUND) -> st.SearchStrategy:
    """Arrays of `shape` whose elements have magnitude in [bound / 4, bound], either sign, and
    every bit of the dtype's mantissa set at random: for a formula whose gradient is a product
    of drawn factors, where a tiny factor would shrink the gradient below the absolute
    tolerance's floor (atol is relative to max(1, |expected|)) and hide a wrong constant."""
    count = _numel(shape)
    return st.integers(0, 2 ** 32 - 1).map(
        lambda seed: _full_precision(seed, count, bound, dtype).reshape(shape))


def _full_precision(seed: int, count: int, bound: float, dtype: str) -> np.ndarray:
    """`count` floats of magnitude in [bound / 4, bound], either sign, with random full
    mantissas in `dtype`, from `seed`."""
    generator = random.Random(seed)  # NumPy's generators take longer to seed than to draw 24
    signed = [generator.choice((-bound, bound)) * generator.randrange(2 ** 51, 2 ** 53) / 2 ** 53
              for _ in range(count)]
    return np.asarray(signed).astype(dtype).astype(np.float64)


class _Builder:
    """The program under construction, with each variable's float64 values for domain checks."""

    def __init__(self, draw, dtype: str, requires_grad: str, unavailable_ops=frozenset()):
        self.draw, self.dtype, self.requires_grad = draw, dtype, requires_grad
        self.unavailable_ops = unavailable_ops   # missing or set aside: never appended
        self.chain = False    # a long program: each op's first input is the latest variable
        self.leaves: list[Leaf] = []
        self.nodes: list[Node] = []
        self.values: dict[str, np.ndarray] = {}

    def new_leaf(self, shape: tuple[int, ...], requires_grad: bool | None = None,
                 tied: bool = False) -> str:
        """A fresh leaf of `shape`; `tied`: its values from TIE_VALUES (tied_values)."""
        name = f"x{len(self.leaves)}"
        flag = {"all": True, "none": False}.get(self.requires_grad, requires_grad)
        if flag is None:  # requiring first: hypothesis often draws (and shrinks to) the first
            flag = self.draw(sampled((True, False)), label=f"{name}.requires_grad")
        strategy = tied_values(shape) if tied else values(shape, self.dtype)
        leaf_values = self.draw(strategy, label=name)
        self.leaves.append(Leaf(name, leaf_values, flag))
        self.values[name] = leaf_values
        return name

    def has(self, op: str) -> bool:
        """Whether the engine has `op` (the builder appends only such ops)."""
        return op not in self.unavailable_ops

    def pick(self, label: str, accept=lambda value: True) -> str | None:
        """An earlier variable that `accept`s: often the latest (which makes long chains), else
        any (which makes diamonds and fan-out)."""
        candidates = [name for name, value in self.values.items() if accept(value)]
        if not candidates:
            return None
        if self.chain or self.draw(st.booleans(), label=f"{label}: the latest variable"):
            return candidates[-1]
        return candidates[self.draw(st.integers(0, len(candidates) - 1), label=label)]

    def partner(self, shape: tuple[int, ...], accept) -> str:
        """An earlier variable that `accept`s, or (sometimes, or if none) a fresh leaf."""
        existing = self.pick("second operand", accept)
        if existing is None or self.draw(st.booleans(), label="fresh leaf as second operand"):
            return self.new_leaf(shape)
        return existing

    def binary_partner(self, shape: tuple[int, ...]) -> str:
        """The second operand of an elementwise op on a first of `shape`: of the same shape,
        broadcast onto it, or one that the first is broadcast to (see BROADCASTING)."""
        kind = self.draw(sampled(BROADCASTING), label="broadcasting")
        if kind == "same shape":
            return self.partner(shape, lambda v: v.shape == shape)
        strategy = broadcastable_shape if kind == "second broadcast" else expanding_shape
        other_shape = self.draw(strategy(shape), label="broadcast shape")
        return self.partner(other_shape, lambda v: v.shape == other_shape)

    def try_op(self, op: str) -> None:
        """Append one application of `op` if a well-conditioned one exists for the drawn inputs."""
        spec = OPS[op]
        a = self.pick(f"{op} input", self._accepts_first(op))
        if a is None:
            return
        shape = self.values[a].shape
        param = self.draw(self._param(op, shape), label=f"{op} parameter")
        if op in EXTREMA:
            a = self._extreme_input(op, a, param)
            if a is None:
                return
        args: tuple[str, ...] = (a,)
        if op in ELEMENTWISE_BINARY:
            args = (a, self.binary_partner(shape))
        elif op == "matmul":
            columns = self.draw(DIM_SIZES, label="matmul columns")
            args = (a, self.partner((shape[1], columns),
                                    lambda v: v.ndim == 2 and v.shape[0] == shape[1]))
        elif op in ("mv", "dot"):
            args = (a, self.partner(shape[-1:], lambda v: v.shape == shape[-1:]))
        inputs = [self.values[name] for name in args]
        if not spec.domain(*inputs, param):
            return
        with np.errstate(all="ignore"):
            result = np.asarray(spec.on_numpy(*inputs, param), dtype=np.float64)
        if not 0 < result.size <= MAX_NUMEL or not np.all(np.abs(result) <= MAGNITUDE_MAX):
            return
        self._add_node(op, args, param, result)

    def _extreme_input(self, op: str, a: str, param) -> str | None:
        """The input of a max or min: often a fresh leaf of a's shape whose values tie, else `a`
        where it has no exact tie (None otherwise): only a leaf's ties are ties in the engine
        too, an intermediate's might be rounded apart in float32."""
        if self.draw(st.booleans(), label=f"{op} of a fresh leaf with ties"):
            return self.new_leaf(self.values[a].shape, tied=True)
        is_leaf = any(leaf.name == a for leaf in self.leaves)
        return a if is_leaf or not has_ties(op, self.values[a], param) else None

    def append(self, op: str, *args: str) -> str:
        """Apply `op` (an op valid everywhere, without parameter) to `args`; returns the name."""
        spec = OPS[op]
        result = np.asarray(spec.on_numpy(*(self.values[a] for a in args), None), dtype=np.float64)
        return self._add_node(op, args, None, result)

    def _add_node(self, op: str, args: tuple[str, ...], param, result: np.ndarray) -> str:
        name = f"v{len(self.nodes) + len(self.leaves)}"
        self.nodes.append(Node(name, op, args, param))
        self.values[name] = result
        return name

    @staticmethod
    def _accepts_first(op: str):
        """Which variables `op` may take as its first input: those of a rank it applies to, and
        for a unary op (or a tensor power's base) those inside its domain, so that ops with a
        narrow domain (sqrt, log) still find an input."""
        if op in ("matmul", "mv"):
            return lambda v: v.ndim == 2
        if op == "dot":
            return lambda v: v.ndim == 1
        if op == "transpose":
            return lambda v: v.ndim >= 2
        if op in ("index", "index_list", "max_dim", "min_dim"):
            return lambda v: v.ndim >= 1
        if op == "pow_tensor":
            return in_pow_base_range
        if op in UNARY or op == "rpow":
            return lambda v: OPS[op].domain(v, None)
        return lambda v: True

    @staticmethod
    @functools.cache
    def _param(op: str, shape: tuple[int, ...]) -> st.SearchStrategy:
        if op == "pow":
            return st.sampled_from((2, 3, 1, 0, -1))
        if op == "rpow":  # a positive Python number base: base ** x is real
            return st.sampled_from((2.0, 0.5, 3.0))
        if op in REDUCTIONS + ("amax", "amin", "max_dim", "min_dim"):
            dims = [dim - len(shape) * negative for dim in range(len(shape))
                    for negative in (False, True)]
            along = tuple((dim, keep) for dim in dims for keep in (False, True))
            return st.sampled_from(along if op in ("max_dim", "min_dim") else (None, *along))
        if op == "transpose":
            pairs = [(first, second) for first in range(len(shape))
                     for second in range(first + 1, len(shape))]
            return st.sampled_from(pairs + [(first - len(shape), second - len(shape))
                                            for first, second in pairs])
        if op == "reshape":
            return st.sampled_from(_reshapes(shape))
        if op == "index":
            size = shape[0]
            single = st.integers(0, size - 1)
            window = st.tuples(st.integers(0, size - 1), st.integers(1, size)).filter(
                lambda bounds: bounds[0] < bounds[1])
            return st.one_of(single, window) if size > 1 else single
        if op == "index_list":
            return st.lists(st.integers(0, shape[0] - 1), min_size=1, max_size=4).map(tuple)
        return st.none()

    def used_leaves(self, output: str) -> list[Leaf]:
        used = self.program(output).ancestors()
        return [leaf for leaf in self.leaves if leaf.name in used]

    def ensure_requiring_leaf(self, output: str) -> None:
        """Make the first leaf on the output's path require grad if none does."""
        used = self.used_leaves(output)
        if not any(leaf.requires_grad for leaf in used):
            index = self.leaves.index(used[0])
            self.leaves[index] = Leaf(used[0].name, used[0].values, True)

    def program(self, output: str) -> Program:
        return Program(self.dtype, tuple(self.leaves), tuple(self.nodes), output)


def _reshapes(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    numel = _numel(shape)
    options = {(numel,), (1, numel), (numel, 1), (1, numel, 1), tuple(reversed(shape)) or (1,),
               shape[:1] + (1,) + shape[1:]}
    return sorted(option for option in options if len(option) <= MAX_DIMS)


@st.composite
def programs(draw, engine, *, ops=ALL_OPS, max_ops: int = 6, output: str = "scalar",
             requires_grad: str = "some", saves_tensors: bool = False,
             dtype: str | None = None, candidates=None) -> Program:
    """A random program for `engine`.

    ops: the op names to draw from. output: "scalar" (end with `.sum()`, or `.mean()` where the
    sum would exceed MAGNITUDE_MAX, when the output has more than one element, so that
    `backward()` needs no gradient), "any", or "vector" (more than one
    element: a broadcasting add with a fresh two-element leaf is appended when needed).
    requires_grad: "some" (random per leaf, but at least one leaf on the output's path requires
    grad), "mixed" (as "some", and at least one leaf on the path does not), "all" or "none".
    saves_tensors: end with `tanh` (whose node saves its result; a product with a fresh 0-dim
    leaf where tanh would saturate) unless some node on the output's path already saves tensors.
    candidates: a function listing what a test chooses from in a program (nodes, names); where
    it lists nothing, the output goes on through two recorded nodes (`neg` or an add of a fresh
    0-dim leaf, then `neg`, `tanh` or `sigmoid`), and the first of them is what every suite asks
    for: a node that requires grad and feeds the output, not the output, no view, saving nothing
    for backward and saved by nothing. So a test draws only programs it can check, without
    rejecting any.
    """
    if candidates is not None and requires_grad == "none":
        raise ValueError("candidates need a leaf that requires grad")
    ops = engine_ops(engine, ops)
    chosen_dtype = dtype or draw(float_dtypes(engine), label="dtype")
    builder = _Builder(draw, chosen_dtype, requires_grad, engine.unavailable_ops)
    builder.new_leaf(draw(shapes(), label="first leaf shape"))
    # One program in eight is a long chain (up to LONG_PROGRAM_OPS ops, each on the latest).
    builder.chain = max_ops >= 6 and draw(st.integers(0, 7), label="long chain") == 0
    count = (st.integers(LONG_PROGRAM_OPS // 2, LONG_PROGRAM_OPS) if builder.chain
             else st.integers(1, max_ops))
    for _ in range(draw(count, label="number of ops")):
        builder.try_op(draw(_op_choice(tuple(ops)), label="op"))
    result = builder.nodes[-1].name if builder.nodes else builder.leaves[-1].name
    if output == "vector" and builder.values[result].size == 1:
        result = builder.append("add", result, builder.new_leaf((2,)))
    if requires_grad in ("some", "mixed"):
        builder.ensure_requiring_leaf(result)
    if requires_grad == "mixed" and all(leaf.requires_grad for leaf in builder.used_leaves(result)):
        # A constant as the *first* operand: the result requires grad through the second.
        result = builder.append("add", builder.new_leaf((), requires_grad=False), result)
    if saves_tensors and not builder.program(result).saves_tensors():
        # tanh saves its result; outside its unsaturated domain, a product with a fresh 0-dim
        # leaf saves its inputs instead.
        result = (builder.append("tanh", result) if builder.has("tanh")
                  and OPS["tanh"].domain(builder.values[result], None)
                  else builder.append("mul", result, builder.new_leaf(())))
    if output == "scalar" and builder.values[result].size != 1:
        total = np.sum(builder.values[result])
        small = abs(total) <= MAGNITUDE_MAX or not builder.has("mean")
        result = builder.append("sum" if small else "mean", result)
    if candidates is not None:
        extended = not candidates(builder.program(result))
        event(f"program extended for the test's candidates: {extended}")
        if extended:
            result = _extend(builder, result)
            assert candidates(builder.program(result)), "the extension gives no candidate"
    program = builder.program(result)
    for feature in sorted(reach(program, builder.values)):
        event(f"reach: {feature}")
    return program


REACH = frozenset({
    *(f"{rank}-D tensor" for rank in range(MAX_DIMS + 1)),
    "size-1 dim stretched (leading)", "size-1 dim stretched (middle)",
    "size-1 dim stretched (trailing)", "missing leading dims broadcast",
    "first operand broadcast", "reduction over every element",
    "reduction over the leading dim", "reduction over a middle dim",
    "reduction over the trailing dim", "reduction with a negative dim", "reduction with keepdim",
    "non-square matmul on both sides", "integer power of a negative base",
    "transpose of a 3-D or 4-D tensor", "transpose with negative dims",
    "matrix-vector product", "vector dot product", "power with a tensor exponent",
    "absolute value of a negative input", "repeated index (gradients add up)",
    "node reused by ops of different broadcasting", "chain of 8 or more ops",
    "fan-out of 3 or more uses",
})


def reach(program: Program, values: dict[str, np.ndarray] | None = None) -> set[str]:
    """The corners of REACH that `program` exercises (recorded as hypothesis events, so that
    --hypothesis-show-statistics shows them; tests/test_strategies.py requires all of them).
    `values`: every variable's value, where the caller has them (else the program is evaluated)."""
    values = program.evaluate() if values is None else values
    found = {f"{values[name].ndim}-D tensor" for name in values}
    stretched_in: dict[str, set[bool]] = {}
    uses: dict[str, int] = {}
    depth = {leaf.name: 0 for leaf in program.leaves}
    for node in program.nodes:
        inputs = [values[arg] for arg in node.args]
        depth[node.name] = 1 + max(depth[arg] for arg in node.args)
        for arg in node.args:
            uses[arg] = uses.get(arg, 0) + 1
        if node.op in ELEMENTWISE_BINARY:
            out = values[node.name].shape
            for position, (arg, value) in enumerate(zip(node.args, inputs)):
                features = _broadcast_features(value.shape, out)
                found |= features
                if features and position == 0:
                    found.add("first operand broadcast")
                stretched_in.setdefault(arg, set()).add(bool(features))
        else:
            for arg in node.args:
                stretched_in.setdefault(arg, set()).add(False)
        found |= _op_features(node, inputs)
    if any(len(kinds) > 1 for kinds in stretched_in.values()):
        found.add("node reused by ops of different broadcasting")
    if max(depth.values()) >= 8:
        found.add("chain of 8 or more ops")
    if max(uses.values(), default=0) >= 3:
        found.add("fan-out of 3 or more uses")
    return found


def _broadcast_features(shape: tuple[int, ...], out: tuple[int, ...]) -> set[str]:
    found = {"missing leading dims broadcast"} if len(shape) < len(out) else set()
    offset = len(out) - len(shape)
    for dim, size in enumerate(shape):
        if size == 1 and out[offset + dim] > 1:
            where = offset + dim
            position = ("leading" if where == 0 else "trailing" if where == len(out) - 1
                        else "middle")
            found.add(f"size-1 dim stretched ({position})")
    return found


def _op_features(node: Node, inputs: list[np.ndarray]) -> set[str]:
    found = set()
    ndim = inputs[0].ndim
    if node.op in REDUCTIONS:
        dim, keepdim = (None, False) if node.param is None else (
            (node.param, False) if isinstance(node.param, int) else node.param)
        if dim is None:
            found.add("reduction over every element")
        else:
            where = dim % ndim
            found.add("reduction over the leading dim" if where == 0 else
                      "reduction over the trailing dim" if where == ndim - 1 else
                      "reduction over a middle dim")
            found |= {"reduction with a negative dim"} if dim < 0 else set()
            found |= {"reduction with keepdim"} if keepdim else set()
    elif node.op == "matmul" and all(a.shape[0] != a.shape[1] for a in inputs):
        found.add("non-square matmul on both sides")
    elif node.op == "pow" and node.param in (-1, 2, 3) and np.any(inputs[0] < 0):
        found.add("integer power of a negative base")
    elif node.op == "transpose":
        found |= {"transpose of a 3-D or 4-D tensor"} if ndim >= 3 else set()
        found |= {"transpose with negative dims"} if node.param and min(node.param) < 0 else set()
    elif node.op == "abs" and np.any(inputs[0] < 0):
        found.add("absolute value of a negative input")
    elif node.op == "index_list" and len(set(node.param)) < len(node.param):
        found.add("repeated index (gradients add up)")
    elif node.op == "mv":
        found.add("matrix-vector product")
    elif node.op == "dot":
        found.add("vector dot product")
    elif node.op == "pow_tensor":
        found.add("power with a tensor exponent")
    elif node.op in EXTREMA and has_ties(node.op, inputs[0], node.param):
        found.add(TIE_FEATURES[0] if node.op in EVEN_SPLIT else TIE_FEATURES[1])
    return found


@functools.cache
def _op_choice(ops: tuple[str, ...]) -> st.SearchStrategy[str]:
    """One of `ops`, each family (arithmetic, two of unary, powers, reduction, matmul, vector
    products, reshape and transpose, indexing) equally likely and each op equally likely within
    its family, so that matmul, the powers (negative bases, negative and tensor exponents) and
    the few shaping ops come up as often as the many unary ones. One draw from a list in which
    each op appears in proportion to its chance: cheaper than a family, then an op (the draws
    are most of a run's time)."""
    families = [tuple(op for op in family if op in ops)
                for family in (ARITHMETIC, UNARY_FUNCTIONS, UNARY_ARITHMETIC, POWERS, REDUCTIONS,
                               ("matmul",), VECTOR_PRODUCTS, ("reshape", "transpose"),
                               ("index", "index_list"), EXTREMA)]
    families = [family for family in families if family]
    common = math.lcm(*map(len, families))
    return st.sampled_from(tuple(op for family in families for op in family
                                 for _ in range(common // len(family))))


def _extend(builder: _Builder, result: str) -> str:
    """Continue the recorded `result` through two shape-keeping nodes (see `programs`)."""
    if builder.draw(st.booleans(), label="extension adds a fresh leaf"):
        middle = builder.append("add", result, builder.new_leaf(()))
    else:
        middle = builder.append("neg", result)
    last = builder.draw(sampled(tuple(op for op in ("neg", "tanh", "sigmoid") if builder.has(op))),
                        label="extension's last op")
    in_domain = OPS[last].domain(builder.values[middle], None)
    return builder.append(last if in_domain else "neg", middle)


def recorded_nodes(program: Program) -> list[str]:
    """Names of the nodes that require grad and feed the output, the output included."""
    used = program.ancestors()
    return [node.name for node in program.nodes
            if program.requires_grad(node.name) and node.name in used]


def recorded_intermediates(program: Program) -> list[str]:
    """The `recorded_nodes` other than the output: where a test hooks, detaches or freezes."""
    return [name for name in recorded_nodes(program) if name != program.output]


def computed_output(program: Program) -> list[str]:
    """The output's name where a node computes it, else nothing: the `candidates` of `programs`
    for a test of the output's own graph (with a leaf that requires grad on its path, such an
    output is recorded)."""
    return [node.name for node in program.nodes if node.name == program.output]


def cotangents(shape: tuple[int, ...], dtype: str) -> st.SearchStrategy[np.ndarray]:
    """A `gradient` argument for backward on an output of `shape`."""
    return values(shape, dtype, bound=2.0)


def unit_vectors(shape: tuple[int, ...]) -> list[np.ndarray]:
    """The unit `gradient` tensors e_i whose backward passes give the Jacobian's rows (JAC-6)."""
    size = _numel(shape)
    return [np.eye(size)[i].reshape(shape) for i in range(size)]


def _in_domain(array: np.ndarray, dtype: str, *, floor: float = 0.0,
               positive: bool = False) -> np.ndarray:
    """`array` moved into an op's smooth domain: |x| >= floor (x >= floor if `positive`),
    rounded to `dtype` so that the values stay exact in the program's dtype."""
    magnitude = floor + np.abs(array)
    moved = magnitude if positive else np.where(array < 0, -magnitude, magnitude)
    kind = np.float32 if dtype == "float32" else np.float64
    rounded = np.asarray(moved, dtype=kind)
    # Rounding may land one step inside the floor (float32(0.01) < 0.01): step back out.
    outward = np.nextafter(rounded, np.copysign(np.inf, rounded).astype(kind))
    inside = np.abs(rounded.astype(np.float64)) < floor
    return np.where(inside, outward, rounded).astype(np.float64)


@st.composite
def op_applications(draw, engine, op: str, *, dtype: str | None = None) -> Program:
    """A program that applies `op` exactly once, to fresh leaves that all require grad, with
    inputs drawn inside the op's smooth domain (the inputs of log and sqrt and a tensor power's
    base >= LOG_MIN or SQRT_MIN, divisors and the bases of negative powers at least DIV_MIN from
    0, the inputs of relu and abs at least KINK_MARGIN from their kink, a tensor power's
    exponent not 0; for max, min, amax and amin, values that tie half the time and no near tie).
    Every example exercises the op, unlike a random program that may reject it."""
    chosen_dtype = dtype or draw(float_dtypes(engine), label="dtype")
    min_dims = (2 if op in ("matmul", "mv", "transpose")
                else 1 if op in REDUCTIONS + SHAPING + EXTREMA + ("index_list", "dot") else 0)
    max_dims = {"matmul": 2, "mv": 2, "dot": 1}.get(op, MAX_DIMS)
    shape = draw(shapes(min_dims=min_dims, max_dims=max_dims), label="input shape")
    param = draw(_Builder._param(op, shape), label=f"{op} parameter")
    first = draw(values(shape, chosen_dtype), label="x0")
    if op in EXTREMA:  # ties half the time, and no near tie (see the op's domain)
        if draw(st.booleans(), label="x0 with ties"):
            first = draw(tied_values(shape), label="x0 tied")
        first = near_ties_removed(op, first, param)
    elif op in ("log", "pow_tensor"):
        first = _in_domain(first, chosen_dtype, floor=LOG_MIN, positive=True)
    elif op == "sqrt":
        first = _in_domain(first, chosen_dtype, floor=SQRT_MIN, positive=True)
    elif op in ("relu", "abs"):
        first = _in_domain(first, chosen_dtype, floor=KINK_MARGIN)
    elif op == "pow" and param < 0:
        first = _in_domain(first, chosen_dtype, floor=DIV_MIN)
    elif op in ("tanh", "sigmoid"):
        first = np.array(np.clip(first, -SATURATION_MAX, SATURATION_MAX))  # exact in any dtype
    leaves = [Leaf("x0", first, True)]
    if OPS[op].arity == 2:
        if op == "matmul":
            other_shape = (shape[1], draw(DIM_SIZES, label="matmul columns"))
        elif op in ("mv", "dot"):
            other_shape = shape[-1:]
        else:
            other_shape = draw(broadcastable_shape(shape), label="broadcast shape")
        second = draw(values(other_shape, chosen_dtype), label="x1")
        if op == "div":
            second = _in_domain(second, chosen_dtype, floor=DIV_MIN)
        elif op == "pow_tensor":  # no exponent of exactly 0 (see the op's domain)
            second = np.where(second == 0.0, 1.0, second)
        leaves.append(Leaf("x1", second, True))
    program = Program(chosen_dtype, tuple(leaves),
                      (Node("v2", op, tuple(leaf.name for leaf in leaves), param),), "v2")
    assert OPS[op].domain(*(leaf.values for leaf in leaves), param), "generator left the domain"
    return program


# ----- views ---------------------------------------------------------------------------------------
class ViewStep:
    """One view op: its text after a tensor (`.t()`, `[1:]`) and what it does to a NumPy array of
    the same shape, so that a chain applied to `np.arange(n).reshape(shape)` gives, for each
    element of the view, the position in its base that it shares (`view_positions`)."""

    __slots__ = ("text", "apply")

    def __init__(self, text: str, apply):
        self.text, self.apply = text, apply

    def __repr__(self):
        return self.text


def _dim(draw, ndim: int, label: str, *, extra: int = 0) -> int:
    """A dim of a tensor of `ndim` dims (`extra` more where the op adds one), often negative."""
    dim = draw(st.integers(0, ndim + extra - 1), label=label)
    return dim - (ndim + extra) if draw(st.booleans(), label=f"{label} negative") else dim


def _along(dim: int, key) -> tuple:
    """A NumPy key that applies `key` along `dim` (a non-negative dim)."""
    return (slice(None),) * dim + (key,)


# The view steps that apply an op of the op set: not drawn where that op is set aside.
VIEW_STEP_OPS = {"reshape": "reshape", "transpose": "transpose", "select int": "index",
                 "slice": "index"}


@st.composite
def view_steps(draw, shape: tuple[int, ...], *, first: bool, writable: bool,
               avoid: frozenset = frozenset()) -> ViewStep:
    """One view op valid on `shape`. Reshapes only come `first`, on a contiguous tensor (whose
    elements are in row-major order: there they are views, later they may copy); expand, whose
    elements share memory, only where the view need not be `writable`; none that applies an op
    in `avoid` (VIEW_STEP_OPS)."""
    ndim = len(shape)
    kinds = ["unsqueeze"]
    if first:
        kinds += ["view", "reshape"] + (["flatten"] if ndim != 1 else [])  # 1-D: itself
    if ndim >= 1:
        kinds += ["select int", "slice", "select", "narrow"]
    if ndim >= 2:
        kinds += ["transpose"]
    if ndim <= 2:
        kinds += ["t"]
    if 1 in shape:
        kinds += ["squeeze"]
    if not writable:
        kinds += ["expand"]
    kinds = [kind for kind in kinds if VIEW_STEP_OPS.get(kind) not in avoid]
    kind = draw(st.sampled_from(kinds), label="view op")
    event(f"view op: {kind}")
    if kind in ("view", "reshape"):
        target = draw(st.sampled_from(_reshapes(shape) + [(-1,)]), label="view shape")
        return ViewStep(f".{kind}({', '.join(map(str, target))})",
                        lambda a: a.reshape(target))
    if kind == "flatten":
        return ViewStep(".flatten()", lambda a: a.reshape(-1))
    if kind == "unsqueeze":
        dim = _dim(draw, ndim, "unsqueeze dim", extra=1)
        return ViewStep(f".unsqueeze({dim})", lambda a: np.expand_dims(a, dim))
    if kind == "squeeze":
        dim = draw(st.sampled_from([d for d, size in enumerate(shape) if size == 1]),
                   label="squeeze dim")
        return ViewStep(f".squeeze({dim})", lambda a: a.squeeze(dim))
    if kind == "transpose":
        dim0, dim1 = _dim(draw, ndim, "dim0"), _dim(draw, ndim, "dim1")
        return ViewStep(f".transpose({dim0}, {dim1})", lambda a: np.swapaxes(a, dim0, dim1))
    if kind == "t":
        return ViewStep(".t()", lambda a: a.T)
    if kind == "expand":
        sizes = (2,) + tuple(3 if size == 1 else size for size in shape)
        return ViewStep(f".expand({', '.join(map(str, sizes))})",
                        lambda a: np.broadcast_to(a, sizes))
    dim = draw(st.integers(0, ndim - 1), label="dim")
    size = shape[dim]
    if kind == "select int":   # x[i] or x[:, i]: a select along `dim`
        index = draw(st.integers(-size, size - 1), label="index")
        return ViewStep("[" + ":, " * dim + f"{index}]", lambda a: a[_along(dim, index)])
    if kind == "select":
        index = draw(st.integers(0, size - 1), label="index")
        return ViewStep(f".select({dim}, {index})", lambda a: a[_along(dim, index)])
    start = draw(st.integers(0, size - 1), label="start")
    length = draw(st.integers(1, size - start), label="length")
    if kind == "narrow":
        return ViewStep(f".narrow({dim}, {start}, {length})",
                        lambda a: a[_along(dim, slice(start, start + length))])
    step = draw(st.sampled_from([1, 1, 2]), label="step")
    key = slice(start, start + length, step)
    text = f"{start}:{start + length}" + (f":{step}" if step != 1 else "")
    return ViewStep("[" + ":, " * dim + text + "]", lambda a: a[_along(dim, key)])


@st.composite
def view_chains(draw, engine, shape: tuple[int, ...], *, writable: bool = True,
                length: int | None = None) -> list[ViewStep]:
    """`length` view ops (a `VIEW_CHAIN` count, drawn if not given), each valid on what the
    previous one left: a view, or a view of a view, of a tensor of `shape`; on `engine`, none
    that applies an op set aside there (noted in JUDGED_WITHOUT, as programs do)."""
    avoid = engine.set_aside_ops.intersection(VIEW_STEP_OPS.values())
    JUDGED_WITHOUT.update(avoid)
    steps = []
    length = draw(counts(VIEW_CHAIN), label="view ops") if length is None else length
    for position in range(length):
        steps.append(draw(view_steps(shape, first=position == 0, writable=writable,
                                     avoid=avoid)))
        shape = view_positions(shape, steps[-1:]).shape
    return steps


def view_positions(shape: tuple[int, ...], chain: list[ViewStep]) -> np.ndarray:
    """For each element of the view that `chain` takes of a tensor of `shape`, the flat position
    in that tensor of the element it shares."""
    positions = np.arange(_numel(shape)).reshape(shape)
    for step in chain:
        positions = step.apply(positions)
    return positions
