"""Engine-independent oracles for gradient values, with the error analysis behind each tolerance.

**Analytic oracle** (`analytic_grads`, what the suites compare against): reverse mode over the
program in float64 NumPy, with each op's vector-Jacobian product written beside its forward pass
in ops.py. Error analysis: every op rounds once in its forward and once in its backward, each a
relative error of at most u = 2**-53 ~ 1.1e-16 (float32: 2**-24 ~ 6e-8) of its operands. A
gradient entry is a sum of terms, one per path from the output to it, each a product of partial
derivatives; each rounding error is relative to one such term, so the scale of the error is the
sum of the terms' sizes, not the size of the sum: the *absolute gradient*, the same reverse pass
with the cotangent and every product term replaced by its absolute value (`Gradients.magnitude`,
computed alongside). Where terms cancel it is far larger than the gradient: `v / v` with upstream
gradient g adds g / v and -g * v / v**2, two terms of size |g / v| that sum to 0 (found by the
false-alarm sweep: terms of about 250 cancelled, and float32 torch was off by 3.2e-5). A
program has at most about 14 ops (max_ops plus the endings strategies.py appends), and the ops'
domains (ops.py) bound how much a forward error is amplified on its way to a gradient
(|d log| <= 1/LOG_MIN = 10, |d(1/b)| <= 1/DIV_MIN**2 = 4, exp <= e**EXP_MAX ~ 55 but then bounded
by MAGNITUDE_MAX). So a correct gradient differs from the exact one by at most about
2 * 14 * u * 10 relative to max(1, the largest gradient entry, the largest absolute-gradient
entry): 3e-14 in float64, 2e-5 in float32. The tolerances below are these bounds, rounded up:
1e-12 for float64 and 2e-5 for float32. Measured on 2,000 random programs (tests/test_oracles.py
keeps the float64 side as a test): torch's float64 gradients agree with the analytic oracle to
4e-16, its float32 gradients to 4.3e-7.
What they catch: a float64 engine that computes one op's backward, or its accumulation into
.grad, in float32 errs by about 1e-8 relative (10,000 times the float64 tolerance); a float32
engine whose gradients are off by a relative 1e-3 errs 50 times beyond the float32 tolerance.

**Finite differences** (`finite_difference_grads`, the independent check of the analytic oracle,
tests/test_oracles.py): central differences of the float64 forward pass with step
h = 1e-6 * max(1, |x|). Truncation is h**2/6 * |f'''|, below 1e-11 for the programs' values
(|x| <= 10 where it matters); rounding is about u * |f| / h ~ 1.1e-16 * 1e4 / 1e-6 ~ 1e-6 at the
largest outputs the generator allows (1e3 per element, a dozen elements): FINITE_DIFFERENCE
= 2e-6 relative to max(1, |gradient|). That is too coarse to tell a float64 engine from one that
rounds through float32, which is why the suites use the analytic oracle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .ops import OPS
from .program import Program


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol_scale: float   # atol = atol_scale * max(1, max |expected|)


# The finite-difference oracle's error relative to max(1, |gradient|), from the analysis above: the
# tolerance of a check against it (the second derivatives of HO-1 and HO-3).
FINITE_DIFFERENCE = Tolerance(2e-6, 2e-6)


TOLERANCES = {"float64": Tolerance(1e-12, 1e-12), "float32": Tolerance(2e-5, 2e-5)}


def central_differences(function, point: np.ndarray, relative_step: float = 1e-6) -> np.ndarray:
    """The gradient of the scalar `function` at `point` by central differences, with step
    relative_step * max(1, |x|) per element."""
    grad = np.zeros_like(point)
    for index in np.ndindex(point.shape):
        step = relative_step * max(1.0, abs(point[index]))
        plus, minus = point.copy(), point.copy()
        plus[index] += step
        minus[index] -= step
        grad[index] = (function(plus) - function(minus)) / (2 * step)
    return grad


def finite_difference_grads(program: Program, cotangent: np.ndarray | None = None,
                            wrt: list[str] | None = None) -> dict[str, np.ndarray]:
    """d(sum(output * cotangent))/d(variable) by central differences, for the variables named in
    `wrt` (default: the leaves that get .grad); a node in `wrt` is varied as if it were an input."""
    base = program.evaluate()
    weights = 1.0 if cotangent is None else np.asarray(cotangent, dtype=np.float64)

    def objective(name: str):
        return lambda values: float(np.sum(program.evaluate({name: values})[program.output]
                                           * weights))

    names = wrt if wrt is not None else [leaf.name for leaf in program.grad_leaves()]
    return {name: central_differences(objective(name), base[name]) for name in names}


class Gradients(dict):
    """Gradients by variable name, with `magnitude`: the largest entry of their absolute gradients
    (the scale of the rounding errors a correct engine makes in them, see above)."""

    def __init__(self, grads: dict, magnitude: float):
        super().__init__(grads)
        self.magnitude = magnitude


def _reverse(program: Program, cotangent, cotangent_size=None) -> tuple[dict, dict, dict]:
    """Every variable's value, and the gradients and absolute gradients (see above) of
    sum(output * cotangent) that reach each variable, by reverse mode in float64 NumPy; the
    absolute ones start from `cotangent_size` (default |cotangent|)."""
    values = program.evaluate()
    shape = values[program.output].shape
    seed = np.broadcast_to(
        np.float64(1.0) if cotangent is None else np.asarray(cotangent, dtype=np.float64), shape)
    size = np.abs(seed) if cotangent_size is None else np.broadcast_to(
        np.asarray(cotangent_size, dtype=np.float64), shape)
    grads, sizes = {program.output: seed.copy()}, {program.output: size.copy()}
    for node in reversed(program.nodes):
        if node.name not in grads:
            continue
        spec, inputs = OPS[node.op], tuple(values[arg] for arg in node.args)
        signed = spec.vjp(grads[node.name], inputs, node.param, values[node.name])
        absolute = spec.vjp(sizes[node.name], inputs, node.param, values[node.name], terms=np.abs)
        for arg, grad, size in zip(node.args, signed, absolute):
            grads[arg] = grads[arg] + grad if arg in grads else np.asarray(grad, np.float64)
            sizes[arg] = sizes[arg] + size if arg in sizes else np.asarray(size, np.float64)
    return values, grads, sizes


def analytic_grads(program: Program, cotangent: np.ndarray | None = None,
                   wrt: list[str] | None = None, cotangent_size: np.ndarray | None = None) -> Gradients:
    """d(sum(output * cotangent))/d(variable) by reverse mode in float64 NumPy, with each op's
    vector-Jacobian product from autograd_conformance/harness/ops.py; the same contract as finite_difference_grads.
    The absolute gradients go along in the same pass: each vjp with |g| and every product term
    replaced by its absolute value. A cotangent that an engine computes by a cancelling formula
    (a test's own step after the program, as 1 - tanh(out) ** 2) passes the sizes of its terms as
    `cotangent_size`, where its rounding errors start."""
    values, grads, sizes = _reverse(program, cotangent, cotangent_size)
    names = wrt if wrt is not None else [leaf.name for leaf in program.grad_leaves()]
    magnitude = max((float(np.max(sizes[name], initial=0.0)) for name in names if name in sizes),
                    default=0.0)
    return Gradients({name: grads.get(name, np.zeros_like(values[name])) for name in names},
                     magnitude)


@dataclass(frozen=True)
class Jacobian:
    """d output / d variable for each variable named, shaped output.shape + variable.shape, and
    beside each entry its absolute gradient (the scale of a correct engine's rounding error in
    it, as Gradients.magnitude is for a gradient)."""
    blocks: dict[str, np.ndarray]
    absolute: dict[str, np.ndarray]

    @property
    def magnitude(self) -> float:
        return max((float(np.max(block, initial=0.0)) for block in self.absolute.values()),
                   default=0.0)

    def times(self, vectors: dict[str, np.ndarray]) -> tuple[np.ndarray, float]:
        """J v = sum over the variables of block @ v (a Jacobian-vector product, output-shaped),
        and the largest entry of |J| @ |v|, the scale of its rounding errors."""
        def product(blocks, absolute=False):
            return sum(np.tensordot(blocks[name], np.abs(v) if absolute else v, axes=v.ndim)
                       for name, v in vectors.items())
        return product(self.blocks), float(np.max(product(self.absolute, True), initial=0.0))


def analytic_jacobian(program: Program, wrt: list[str]) -> Jacobian:
    """The Jacobian of the program's output with respect to the variables `wrt`: row i is the
    analytic gradient for the unit cotangent e_i (JAC-6)."""
    shape = program.evaluate()[program.output].shape
    size = int(np.prod(shape, dtype=int))
    rows = [_reverse(program, np.eye(size)[i].reshape(shape)) for i in range(size)]
    values = rows[0][0] if rows else program.evaluate()

    def stacked(which: int, name: str) -> np.ndarray:
        parts = [row[which].get(name, np.zeros_like(values[name])) for row in rows]
        return np.stack(parts).reshape(shape + values[name].shape)

    return Jacobian({name: stacked(1, name) for name in wrt},
                    {name: stacked(2, name) for name in wrt})


def central_difference_jacobian(function, point: np.ndarray,
                                relative_step: float = 1e-6) -> np.ndarray:
    """The Jacobian of `function` (array to array) at `point` by central differences, shaped
    output.shape + point.shape, with central_differences' steps."""
    columns = []
    for index in np.ndindex(point.shape):
        step = relative_step * max(1.0, abs(point[index]))
        plus, minus = point.copy(), point.copy()
        plus[index] += step
        minus[index] -= step
        columns.append((np.asarray(function(plus)) - np.asarray(function(minus))) / (2 * step))
    stacked = np.stack(columns, axis=-1)
    return stacked.reshape(stacked.shape[:-1] + point.shape)


def finite_difference_hessian(program: Program, wrt: list[str]) -> dict:
    """The Hessian of a one-element program's output by blocks: [(a, b)] = d(d out / d a)/d b,
    shaped a.shape + b.shape, from central differences of the analytic first derivatives (each
    block accurate to FINITE_DIFFERENCE relative to its largest entry)."""
    blocks = {}
    for b in wrt:
        def gradients(values, b=b):
            return analytic_grads(program.with_leaf_values(b, values), wrt=wrt)
        columns = central_difference_jacobian(
            lambda values: np.concatenate([grad.ravel() for grad in gradients(values).values()]),
            program.leaf(b).values)
        offset = 0
        for a in wrt:
            size = program.leaf(a).values.size
            blocks[a, b] = columns[offset:offset + size].reshape(program.leaf(a).values.shape
                                                                 + program.leaf(b).values.shape)
            offset += size
    return blocks


def finite_difference_hvp(program: Program, weights: dict[str, np.ndarray],
                          cotangent: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """d/d(leaf) of sum over the leaves a named in `weights` of <d(sum(out * cotangent))/d a,
    weights[a]>, for each of those leaves: central differences of one scalar function of the
    analytic first derivatives, an oracle that asks the engine nothing (accurate to
    FINITE_DIFFERENCE). For a one-element output and no cotangent it is the Hessian-vector
    product H w; with a cotangent v, the derivative of the vector-Jacobian product v^T J."""
    names = list(weights)

    def weighted(name):
        def first_derivatives_dot_weights(values):
            grads = analytic_grads(program.with_leaf_values(name, values), cotangent, wrt=names)
            return float(sum(np.sum(grads[a] * weights[a]) for a in names))
        return first_derivatives_dot_weights

    return {name: central_differences(weighted(name), program.leaf(name).values)
            for name in names}
