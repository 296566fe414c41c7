"""The differentiable op set of the random programs, one row per op.

Each op is written four times, side by side, so that its forms cannot drift apart: how it reads
in a torch script (`template`: what a test's Script runs on the engine, with `torch` bound to the
engine's namespace, and prints in the reproducer), how to compute it in float64 NumPy (the oracle's
forward pass), its vector-Jacobian product in float64 NumPy (`vjp`: the analytic oracle's
backward pass, checked against central differences and against torch by tests/test_oracles.py),
and the same backward formula in the engine's Tensor ops (`backward_source`: the backward of a
custom autograd.Function that computes the op, whose gradients suites/test_custom_function.py
checks against the analytic oracle's).
`saves_tensors` records whether torch's backward node for the op keeps tensors for backward: only
then does a second backward without `retain_graph` raise (RETAIN-1 vs RETAIN-3). `domain` says
where the op is smooth and well conditioned, so that rounding stays within the oracles' error
analysis and finite differences stay a reliable check of them (see strategies.py). max, min, amax
and amin are not smooth where an extreme is tied: there their vjp is the subgradient torch
documents (OP-9 .. OP-11, checked against torch only), and their domain allows exact ties but no
near one (TIE_MARGIN).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

# Domain margins, chosen so that central differences with step <= 1e-5 never cross a kink or pole
# and float32 rounding stays far below the suite's tolerances (see autograd_conformance/harness/oracles.py).
LOG_MIN = 0.1        # log's derivative 1/x stays <= 10
DIV_MIN = 0.5        # 1/b and a/b**2 stay bounded
EXP_MAX = 4.0        # exp(4) ~ 55: no overflow in float32 after a few more ops
POW_BASE_MAX = 10.0
POW_EXPONENT_MAX = 3.0  # |b| of a tensor exponent, as the integer powers' (-1 to 3): with the
                        # base in [LOG_MIN, POW_BASE_MAX], a ** b's relative condition numbers
                        # |b| and |b * log(a)| stay <= 7
SQRT_MIN = 0.1       # sqrt's derivative 1/(2 sqrt(x)) stays <= 1.6
KINK_MARGIN = 1e-2   # relu inputs keep this distance from 0
SATURATION_MAX = 2.5  # tanh and sigmoid inputs stay within +-2.5: their derivatives 1 - t**2 and
                      # s * (1 - s) then lose at most ~70x the dtype's rounding to cancellation
MAGNITUDE_MAX = 1e3  # no node's values exceed this
TIE_MARGIN = 1e-2    # an entry of a max's or min's slice equals the extreme or stays this far from
                     # it (relative to max(1, |extreme|)): a near tie would be a tie or not
                     # depending on rounding, and central differences would cross it


@dataclass(frozen=True)
class OpSpec:
    name: str
    arity: int
    on_numpy: Callable[..., np.ndarray]  # (*arrays, param) -> array
    template: str                      # str.format template: {0}, {1} are args, {p} the param
    saves_tensors: bool
    grad_fn_name: Callable[[Any], str]  # param -> torch's grad_fn class name
    domain: Callable[..., bool] = lambda *arrays_and_param: True
    # (upstream gradient g, inputs, param, result, terms) -> one gradient per input, in the
    # input's shape. `terms` is applied to each product of g with a partial derivative before the
    # products are added up: the identity gives the vjp; np.abs, with g >= 0, gives the sizes of
    # the terms each gradient entry adds up (the absolute gradient, autograd_conformance/harness/oracles.py's scale).
    vjp: Callable[..., tuple] = field(kw_only=True)
    # The same backward as source text in the engine's Tensor ops (torch bound to the engine's
    # namespace): one expression per input, of g (the gradient of the result), a and b (the
    # inputs) and r (the result). Where the formula depends on the param, the shapes or the dtype,
    # a function (param, input shapes, output shape, dtype) -> the expressions; see
    # backward_formulas.
    backward_source: tuple[str, ...] | Callable[..., tuple[str, ...]] = field(kw_only=True)


def _reduction(param) -> tuple[int | None, bool]:
    """A reduction's param: None (every element), a dim, or (dim, keepdim); dims may be < 0."""
    if param is None or isinstance(param, int):
        return param, False
    return param


def _sum_np(a, param):
    dim, keepdim = _reduction(param)
    return np.sum(a) if dim is None else np.sum(a, axis=dim, keepdims=keepdim)


def _mean_np(a, param):
    dim, keepdim = _reduction(param)
    return np.mean(a) if dim is None else np.mean(a, axis=dim, keepdims=keepdim)


def _index_np(a, index):
    return a[index] if isinstance(index, int) else a[index[0]:index[1]]


def _index_text(index):
    return str(index) if isinstance(index, int) else f"{index[0]}:{index[1]}"


def in_pow_base_range(a: np.ndarray) -> bool:
    """Whether `a` can be a tensor power's base: positive (a ** b is real, d/db = a ** b * log(a)
    exists) and as well conditioned as log's input."""
    return bool(np.all((a >= LOG_MIN) & (a <= POW_BASE_MAX)))


def _sigmoid_np(a):
    return 1.0 / (1.0 + np.exp(-a))


def _dim_text(param):
    dim, keepdim = _reduction(param)
    return "" if dim is None else f"dim={dim}" + (", keepdim=True" if keepdim else "")


def _swapped(param) -> tuple[int, int]:
    """transpose's param: the two dims it swaps (None: the first two)."""
    return (0, 1) if param is None else param


def _unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum `grad` over the dims that broadcasting added to or stretched in `shape`."""
    grad = np.sum(grad, axis=tuple(range(grad.ndim - len(shape)))) if grad.ndim > len(shape) else grad
    stretched = tuple(dim for dim, size in enumerate(shape) if size == 1 and grad.shape[dim] != 1)
    return np.sum(grad, axis=stretched, keepdims=True).reshape(shape)


def _same(x):
    return x


def _binary(d_first, d_second):
    """The vjp of a broadcasting binary op from its local derivatives (g, a, b, result) -> array."""
    def vjp(g, inputs, param, result, terms=_same):
        a, b = inputs
        return (_unbroadcast(terms(d_first(g, a, b, result)), a.shape),
                _unbroadcast(terms(d_second(g, a, b, result)), b.shape))
    return vjp


def _unary(derivative):
    """The vjp of an elementwise unary op from its derivative (a, param, result) -> array."""
    return lambda g, inputs, param, result, terms=_same: (
        terms(g * derivative(inputs[0], param, result)),)


# The vjps below, of ops whose Jacobian has no negative entry (they move, copy or add up g's
# entries), ignore `terms`: with g >= 0 they already give the absolute gradient.
def _reduction_vjp(g, inputs, param, result, terms=_same, mean: bool = False):
    (a,) = inputs
    dim, keepdim = _reduction(param)
    if dim is not None and not keepdim:
        g = np.expand_dims(g, dim)
    count = a.size if dim is None else a.shape[dim]
    return (np.broadcast_to(g / count if mean else g, a.shape).copy(),)


def _index_list_vjp(g, inputs, param, result, terms=_same):
    """Each row of `g` goes back to the row it was taken from; a repeated index adds its rows."""
    (a,) = inputs
    grad = np.zeros_like(a)
    np.add.at(grad, list(param), g)
    return (grad,)


def _index_vjp(g, inputs, param, result, terms=_same):
    (a,) = inputs
    grad = np.zeros_like(a)
    grad[param if isinstance(param, int) else slice(*param)] = g
    return (grad,)


# max, min, amax and amin: the extreme of every element or of each slice along one dim, with
# torch's tie rules (OP-9, OP-10, OP-11).
EXTREME = {"amax": np.max, "max": np.max, "max_dim": np.max,
           "amin": np.min, "min": np.min, "min_dim": np.min}


def _extreme_np(op: str):
    def on_numpy(a, param):
        dim, keepdim = _reduction(param)
        return EXTREME[op](a) if dim is None else EXTREME[op](a, axis=dim, keepdims=keepdim)
    return on_numpy


def _kept(array, dim, keepdim) -> np.ndarray:
    """A reduction's result (or its gradient) with the reduced dim back, of size 1, so that it
    broadcasts over the input."""
    return np.expand_dims(array, dim) if dim is not None and not keepdim else np.asarray(array)


def _extremes(op: str, a: np.ndarray, param) -> np.ndarray:
    """Each slice's extreme (max or min), the reduced dim kept."""
    dim, _ = _reduction(param)
    return EXTREME[op](a, axis=dim, keepdims=True)


def near_ties_removed(op: str, a: np.ndarray, param) -> np.ndarray:
    """`a` with each entry within TIE_MARGIN of its slice's extreme set to that extreme: a near
    tie made an exact one, exact in every dtype `a` is (the extreme is one of its entries)."""
    extreme = _extremes(op, a, param)
    near = np.abs(a - extreme) < TIE_MARGIN * np.maximum(1.0, np.abs(extreme))
    return np.where(near, extreme, a)


def has_ties(op: str, a: np.ndarray, param) -> bool:
    """Whether some slice has its extreme at two entries or more."""
    dim, _ = _reduction(param)
    return bool(np.any(np.sum(a == _extremes(op, a, param), axis=dim) > 1))


def _extreme_domain(op: str):
    """No near ties (see TIE_MARGIN); exact ones are the point."""
    return lambda a, param: bool(np.array_equal(near_ties_removed(op, a, param), a))


def _even_split_vjp(g, inputs, param, result, terms=_same):
    """amax, amin, and max or min of every element: each slice's gradient divided evenly among
    the entries equal to its extreme (OP-9, OP-10)."""
    (a,) = inputs
    dim, keepdim = _reduction(param)
    tied = a == _kept(result, dim, keepdim)
    return (_kept(g, dim, keepdim) / np.sum(tied, axis=dim, keepdims=True) * tied,)


def _first_index_vjp(g, inputs, param, result, terms=_same):
    """max(dim), min(dim): each slice's gradient wholly to its first entry equal to the extreme,
    the index they return (OP-11)."""
    (a,) = inputs
    dim, keepdim = _reduction(param)
    first = np.argmax(a == _kept(result, dim, keepdim), axis=dim, keepdims=True)
    grad = np.zeros_like(a)
    np.put_along_axis(grad, first, _kept(g, dim, keepdim), axis=dim)
    return (grad,)


def _extreme_spec(op: str, template: str, grad_fn: str, vjp, backward_source) -> OpSpec:
    return OpSpec(op, 1, _extreme_np(op), template, True, lambda p: grad_fn,
                  domain=_extreme_domain(op), vjp=vjp, backward_source=backward_source)


# The backward formulas in Tensor ops (backward_source) that depend on the param or the shapes.
def _summed_source(expression: str, shape: tuple, target: tuple) -> str:
    """`expression` (a gradient of `shape`) summed over the dims that broadcasting added to or
    stretched in `target`, written with Tensor.sum: _unbroadcast in Tensor ops."""
    text = f"({expression})"
    for _ in range(len(shape) - len(target)):
        text += ".sum(dim=0)"
    lead = len(shape) - len(target)
    for dim, size in enumerate(target):
        if size == 1 and shape[lead + dim] != 1:
            text += f".sum(dim={dim}, keepdim=True)"
    return text


def _binary_source(first: str, second: str):
    """The backward source of a broadcasting binary op from its local formulas, each summed to
    its input's shape (as _binary's vjp)."""
    return lambda param, shapes, out, dtype: (_summed_source(first, out, shapes[0]),
                                              _summed_source(second, out, shapes[1]))


def _reduction_source(mean: bool):
    """sum's or mean's backward: g, its reduced dim restored, broadcast to a's shape."""
    def source(param, shapes, out, dtype):
        (a_shape,) = shapes
        dim, keepdim = _reduction(param)
        kept = list(a_shape)
        if dim is not None:
            kept[dim] = 1
        count = int(np.prod(a_shape, dtype=int)) if dim is None else a_shape[dim]
        scale = f" / {float(count)!r}" if mean else ""
        shape = tuple(kept) if dim is not None else ()
        return (f"g.reshape({shape}){scale} + torch.zeros_like(a)",)
    return source


def _selection_source(rows, shape, dtype) -> str:
    """The gradient of taking `rows` of dim 0 from a tensor of `shape`: the selection matrix's
    transpose times g's rows, so that a repeated row adds up (_index_list_vjp's np.add.at)."""
    matrix = np.zeros((len(rows), shape[0]))
    matrix[np.arange(len(rows)), rows] = 1.0
    rest = int(np.prod(shape[1:], dtype=int))
    return (f"(torch.tensor({matrix.T.tolist()!r}, dtype=torch.{dtype}) @ "
            f"g.reshape({len(rows)}, {rest})).reshape({shape})")


def _kept_source(param, shape) -> tuple[str, tuple]:
    """A reduction's dim (text) and its keepdim shape: what g and r are reshaped to."""
    dim, _ = _reduction(param)
    return ("", ()) if dim is None else (f"dim={dim}, ", tuple(
        1 if axis == dim % len(shape) else size for axis, size in enumerate(shape)))


def _even_split_source(param, shapes, out, dtype):
    """_even_split_vjp in Tensor ops: the mask of the tied entries times g over their count."""
    dim, kept = _kept_source(param, shapes[0])
    tied = f"(a == r.reshape({kept}))"
    return (f"{tied} * (g.reshape({kept}) / {tied}.sum({dim}keepdim=True))"
            if dim else f"{tied} * (g / {tied}.sum())",)


def _first_index_source(arg: str):
    """_first_index_vjp in Tensor ops: g scattered to the index argmax or argmin returns."""
    def source(param, shapes, out, dtype):
        dim, kept = _kept_source(param, shapes[0])
        return (f"torch.zeros_like(a).scatter({_reduction(param)[0]}, "
                f"a.{arg}({dim}keepdim=True), g.reshape({kept}))",)
    return source


def _index_rows(index) -> list[int]:
    """The rows of dim 0 that index's param takes: one, or a slice's."""
    return [index] if isinstance(index, int) else list(range(*index))


OPS: dict[str, OpSpec] = {spec.name: spec for spec in [
    OpSpec("add", 2, lambda a, b, p: a + b, "{0} + {1}", False,
           lambda p: "AddBackward0",
           vjp=_binary(lambda g, a, b, r: g, lambda g, a, b, r: g),
           backward_source=_binary_source("g", "g")),
    OpSpec("sub", 2, lambda a, b, p: a - b, "{0} - {1}", False,
           lambda p: "SubBackward0",
           vjp=_binary(lambda g, a, b, r: g, lambda g, a, b, r: -g),
           backward_source=_binary_source("g", "-g")),
    OpSpec("mul", 2, lambda a, b, p: a * b, "{0} * {1}", True,
           lambda p: "MulBackward0",
           vjp=_binary(lambda g, a, b, r: g * b, lambda g, a, b, r: g * a),
           backward_source=_binary_source("g * b", "g * a")),
    OpSpec("div", 2, lambda a, b, p: a / b, "{0} / {1}", True,
           lambda p: "DivBackward0",
           domain=lambda a, b, p: bool(np.all(np.abs(b) >= DIV_MIN)),
           vjp=_binary(lambda g, a, b, r: g / b, lambda g, a, b, r: -g * a / b ** 2),
           backward_source=_binary_source("g / b", "-g * a / (b * b)")),
    OpSpec("neg", 1, lambda a, p: -a, "-{0}", False,
           lambda p: "NegBackward0",
           vjp=_unary(lambda a, p, r: -1.0),
           backward_source=("-g",)),
    OpSpec("pow", 1, lambda a, p: a ** float(p), "{0} ** {p}", True,
           lambda p: "PowBackward0",
           domain=lambda a, p: bool(np.all(np.abs(a) <= POW_BASE_MAX)
                                    and (p >= 0 or np.all(np.abs(a) >= DIV_MIN))),
           vjp=_unary(lambda a, p, r: p * a ** float(p - 1) if p != 0 else 0.0 * a),
           backward_source=lambda p, shapes, out, dtype: (
               ("g * (0.0 * a)",) if p == 0 else (f"g * {float(p)!r} * a ** {p - 1}",))),
    OpSpec("pow_tensor", 2, lambda a, b, p: a ** b, "{0} ** {1}", True,
           lambda p: "PowBackward1",
           # No exponent of exactly 0: torch's base gradient is set to 0 there (as b * a**(b-1)
           # is), which drops its derivative along b, so second derivatives come out wrong.
           domain=lambda a, b, p: in_pow_base_range(a)
           and bool(np.all((np.abs(b) <= POW_EXPONENT_MAX) & (b != 0))),
           vjp=_binary(lambda g, a, b, r: g * b * a ** (b - 1.0),
                       lambda g, a, b, r: g * r * np.log(a)),
           backward_source=_binary_source("g * b * a ** (b - 1.0)", "g * r * torch.log(a)")),
    OpSpec("rpow", 1, lambda a, p: p ** a, "{p} ** {0}", True,
           lambda p: "PowBackward2",
           domain=lambda a, p: bool(np.all(np.abs(a) <= POW_EXPONENT_MAX)),
           vjp=_unary(lambda a, p, r: r * np.log(p)),
           backward_source=lambda p, shapes, out, dtype: (f"g * r * {math.log(p)!r}",)),
    OpSpec("exp", 1, lambda a, p: np.exp(a), "torch.exp({0})", True,
           lambda p: "ExpBackward0", domain=lambda a, p: bool(np.all(a <= EXP_MAX)),
           vjp=_unary(lambda a, p, r: r),
           backward_source=("g * r",)),
    OpSpec("log", 1, lambda a, p: np.log(a), "torch.log({0})", True,
           lambda p: "LogBackward0", domain=lambda a, p: bool(np.all(a >= LOG_MIN)),
           vjp=_unary(lambda a, p, r: 1.0 / a),
           backward_source=("g / a",)),
    OpSpec("tanh", 1, lambda a, p: np.tanh(a), "torch.tanh({0})", True,
           lambda p: "TanhBackward0",
           domain=lambda a, p: bool(np.all(np.abs(a) <= SATURATION_MAX)),
           vjp=_unary(lambda a, p, r: 1.0 - r ** 2),
           backward_source=("g - g * r * r",)),
    OpSpec("sigmoid", 1, lambda a, p: _sigmoid_np(a),
           "torch.sigmoid({0})", True, lambda p: "SigmoidBackward0",
           domain=lambda a, p: bool(np.all(np.abs(a) <= SATURATION_MAX)),
           vjp=_unary(lambda a, p, r: r * (1.0 - r)),
           backward_source=("g * r - g * r * r",)),
    OpSpec("relu", 1, lambda a, p: np.maximum(a, 0.0),
           "torch.relu({0})", True, lambda p: "ReluBackward0",
           domain=lambda a, p: bool(np.all(np.abs(a) >= KINK_MARGIN)),
           vjp=_unary(lambda a, p, r: (a > 0).astype(np.float64)),
           backward_source=("g * (torch.relu(a) / a)",)),
    OpSpec("sqrt", 1, lambda a, p: np.sqrt(a), "torch.sqrt({0})", True,
           lambda p: "SqrtBackward0", domain=lambda a, p: bool(np.all(a >= SQRT_MIN)),
           vjp=_unary(lambda a, p, r: 0.5 / r),
           backward_source=("g * 0.5 / r",)),
    OpSpec("abs", 1, lambda a, p: np.abs(a), "torch.abs({0})", True,
           lambda p: "AbsBackward0", domain=lambda a, p: bool(np.all(np.abs(a) >= KINK_MARGIN)),
           vjp=_unary(lambda a, p, r: np.sign(a)),
           backward_source=("g * (torch.abs(a) / a)",)),
    OpSpec("clone", 1, lambda a, p: a.copy(), "{0}.clone()", False,
           lambda p: "CloneBackward0",
           vjp=lambda g, inputs, p, r, terms=_same: (g,),
           backward_source=("g",)),
    OpSpec("sum", 1, lambda a, p: _sum_np(a, p), "{0}.sum({p_dim})", False,
           lambda p: "SumBackward0" if p is None else "SumBackward1",
           vjp=_reduction_vjp, backward_source=_reduction_source(mean=False)),
    OpSpec("mean", 1, lambda a, p: _mean_np(a, p), "{0}.mean({p_dim})", False,
           lambda p: "MeanBackward0" if p is None else "MeanBackward1",
           vjp=lambda g, inputs, p, r, terms=_same: _reduction_vjp(g, inputs, p, r,
                                                                     mean=True),
           backward_source=_reduction_source(mean=True)),
    OpSpec("matmul", 2, lambda a, b, p: a @ b, "{0} @ {1}", True,
           lambda p: "MmBackward0",
           vjp=lambda g, inputs, p, r, terms=_same: (g @ terms(inputs[1]).T,
                                                      terms(inputs[0]).T @ g),
           backward_source=("g @ b.transpose(0, 1)", "a.transpose(0, 1) @ g")),
    # `@` with vector operands records other nodes than matmul's: 2-D @ 1-D is torch's mv,
    # 1-D @ 1-D its dot. (1-D @ 2-D is left out: torch records it as mm between an unsqueeze and a
    # squeeze, so its node would not point at its inputs.)
    OpSpec("mv", 2, lambda a, b, p: a @ b, "{0} @ {1}", True,
           lambda p: "MvBackward0",
           vjp=lambda g, inputs, p, r, terms=_same: (np.outer(g, terms(inputs[1])),
                                                      terms(inputs[0]).T @ g),
           backward_source=lambda p, shapes, out, dtype: (
               f"g.reshape({shapes[0][0]}, 1) @ b.reshape(1, {shapes[0][1]})",
               "a.transpose(0, 1) @ g")),
    OpSpec("dot", 2, lambda a, b, p: a @ b, "{0} @ {1}", True,
           lambda p: "DotBackward0",
           vjp=lambda g, inputs, p, r, terms=_same: (g * terms(inputs[1]), g * terms(inputs[0])),
           backward_source=("g * b", "g * a")),
    OpSpec("reshape", 1, lambda a, p: a.reshape(p),
           "{0}.reshape({p})", False, lambda p: "ViewBackward0",
           vjp=lambda g, inputs, p, r, terms=_same: (g.reshape(inputs[0].shape),),
           backward_source=lambda p, shapes, out, dtype: (f"g.reshape({shapes[0]})",)),
    OpSpec("transpose", 1, lambda a, p: np.swapaxes(a, *_swapped(p)),
           "{0}.transpose({p_swapped})", False, lambda p: "TransposeBackward0",
           vjp=lambda g, inputs, p, r, terms=_same: (np.swapaxes(g, *_swapped(p)),),
           backward_source=lambda p, shapes, out, dtype: (
               "g.transpose({}, {})".format(*_swapped(p)),)),
    OpSpec("index", 1, lambda a, p: _index_np(a, p),
           "{0}[{p_index}]", False,
           lambda p: "SelectBackward0" if isinstance(p, int) else "SliceBackward0",
           vjp=_index_vjp,
           backward_source=lambda p, shapes, out, dtype: (
               _selection_source(_index_rows(p), shapes[0], dtype),)),
    # Advanced indexing on dim 0 with a list of ints (a tuple param, written as a list), which
    # may repeat: a copy, not a view; torch's node saves the indices as a tensor.
    OpSpec("index_list", 1, lambda a, p: a[list(p)], "{0}[{p_list}]", True,
           lambda p: "IndexBackward0",
           vjp=_index_list_vjp,
           backward_source=lambda p, shapes, out, dtype: (
               _selection_source(list(p), shapes[0], dtype),)),
    _extreme_spec("amax", "{0}.amax({p_dim})", "AmaxBackward0", _even_split_vjp,
                  _even_split_source),
    _extreme_spec("amin", "{0}.amin({p_dim})", "AminBackward0", _even_split_vjp,
                  _even_split_source),
    _extreme_spec("max", "{0}.max()", "MaxBackward1", _even_split_vjp, _even_split_source),
    _extreme_spec("min", "{0}.min()", "MinBackward1", _even_split_vjp, _even_split_source),
    # max(dim) and min(dim) return (values, indices); the program goes on with the values.
    _extreme_spec("max_dim", "{0}.max({p_dim})[0]", "MaxBackward0", _first_index_vjp,
                  _first_index_source("argmax")),
    _extreme_spec("min_dim", "{0}.min({p_dim})[0]", "MinBackward0", _first_index_vjp,
                  _first_index_source("argmin")),
]}


# The catalog behaviour that judges each op's own gradients (suites/test_op_grads.py): where an op
# is set aside on an engine (its own verdict failed), only these tests still apply it on purpose.
GRADIENT_BEHAVIOURS = {
    "OP-1": ("add", "sub", "neg", "clone"),
    "OP-2": ("mul", "div"),
    "OP-3": ("exp", "log", "tanh", "sigmoid", "sqrt", "abs"),
    "OP-4": ("pow", "pow_tensor", "rpow"),
    "OP-5": ("relu",),
    "OP-6": ("sum", "mean"),
    "OP-7": ("matmul", "mv", "dot"),
    "OP-8": ("reshape", "transpose", "index", "index_list"),
    # outside the core op set (capability max_min)
    "OP-9": ("amax", "amin"),
    "OP-10": ("max", "min"),
    "OP-11": ("max_dim", "min_dim"),
}
GRADIENT_BEHAVIOUR = {op: behaviour for behaviour, ops in GRADIENT_BEHAVIOURS.items()
                      for op in ops}


def backward_formulas(spec: OpSpec, param, input_shapes, output_shape,
                      dtype: str) -> tuple[str, ...]:
    """The op's backward in Tensor ops (`backward_source`): one expression per input, of g, a, b
    and r, for inputs of `input_shapes` giving a result of `output_shape`, in `dtype`."""
    source = spec.backward_source
    if callable(source):
        return source(param, tuple(map(tuple, input_shapes)), tuple(output_shape), dtype)
    return source


# The ops whose param is None, a dim or (dim, keepdim), written as keywords.
DIM_PARAM_OPS = ("sum", "mean", "amax", "amin", "max_dim", "min_dim")

# Op -> the expressions `render` wrote for it since the runner last emptied this (before each test):
# the op applications of the test's programs. Strategies never draw an op set aside on the
# engine, so one written here was chosen by the test itself (a node it adds or builds:
# runner/op_verdicts.py notes it); tools/names_recorder.py leaves these applications out of what
# a test's own code applies.
RENDERED: dict[str, set[str]] = {}


def render(spec: OpSpec, args: tuple[str, ...], param) -> str:
    """The torch expression for one op application, e.g. `v1.sum(dim=0)` (noted in RENDERED)."""
    text = spec.template.format(
        *args, p=param, p_dim=_dim_text(param) if spec.name in DIM_PARAM_OPS else "",
        p_swapped=", ".join(map(str, _swapped(param))) if spec.name == "transpose" else "",
        p_index=_index_text(param) if spec.name == "index" else "",
        p_list=str(list(param)) if spec.name == "index_list" else "")
    RENDERED.setdefault(spec.name, set()).add(text)
    return text
