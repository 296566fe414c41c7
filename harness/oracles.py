"""Engine-independent oracles for gradient values, and the comparison that reports against them.

Finite differences: central differences of the program's float64 NumPy forward pass, with step
h = 1e-6 * max(1, |x|). Error analysis: truncation is h**2/6 * |f'''|, below 1e-11 for the
programs' values (|x| <= 10 where it matters); rounding is about eps64 * |f| / h ~ 2e-16 * 1e4 /
1e-6 = 2e-6 at the largest outputs the generator allows (1e3 per element, a dozen elements). So a
float64 engine must agree within rtol = atol_scale = 1e-5.

Float32 engines compute every op in float32: each op adds a relative error of about 6e-8, and the
programs' domains (ops.py) bound how far it is amplified (|d log| <= 10, |d(1/b)| <= 4, at most a
dozen ops), so a correct float32 gradient agrees with the float64 oracle within 1e-3 relative to
the largest gradient entry; bugs (a missing term, a wrong sign, an unreduced broadcast) are O(1).
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


# The finite-difference oracle's error relative to max(1, |gradient|), from the analysis above.
FINITE_DIFFERENCE_ERROR = 2e-6


TOLERANCES = {"float64": Tolerance(1e-5, 1e-5), "float32": Tolerance(1e-3, 1e-3)}


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


def analytic_grads(program: Program, cotangent: np.ndarray | None = None,
                   wrt: list[str] | None = None) -> dict[str, np.ndarray]:
    """d(sum(output * cotangent))/d(variable) by reverse mode in float64 NumPy, with each op's
    vector-Jacobian product from harness/ops.py; the same contract as finite_difference_grads."""
    values = program.evaluate()
    grads = {program.output: np.broadcast_to(
        np.float64(1.0) if cotangent is None else np.asarray(cotangent, dtype=np.float64),
        values[program.output].shape).copy()}
    for node in reversed(program.nodes):
        if node.name not in grads:
            continue
        inputs = tuple(values[arg] for arg in node.args)
        for arg, grad in zip(node.args, OPS[node.op].vjp(grads[node.name], inputs, node.param,
                                                          values[node.name])):
            grads[arg] = grads[arg] + grad if arg in grads else np.asarray(grad, np.float64)
    names = wrt if wrt is not None else [leaf.name for leaf in program.grad_leaves()]
    return {name: grads.get(name, np.zeros_like(values[name])) for name in names}
