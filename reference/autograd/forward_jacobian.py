"""jacobian(strategy="forward-mode"): the Jacobian column by column (FUNC-9).

Reverse mode (functional.py) gets row k of d output / d input from one vector-Jacobian product
with the unit vector e_k of the output. Forward mode gets column k from one Jacobian-vector
product J e_k, with e_k a unit vector of the inputs: forward-mode AD (dual.py) computes it beside
one evaluation of the function, whose inputs carry e_k as their tangents. Both give the same
Jacobian. torch maps the evaluations over all the unit vectors at once (vmap, hence
vectorize=True only); one evaluation per unit vector gives the same values.
"""
import numpy as np

from ..tensor import make
from . import forward_ad

STRATEGIES = ("forward-mode", "reverse-mode")


def check_strategy(strategy, create_graph, strict, vectorize):
    """torch's refusals, in its order: an unknown strategy, then for forward mode create_graph,
    strict and vectorize=False, none of which it supports."""
    if strategy not in STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "reverse-mode":
        return
    for refused, name, value in ((create_graph, "create_graph", "False"), (strict, "strict", "False")):
        if refused:
            raise NotImplementedError(f"torch.autograd.functional.jacobian: `{name}=True` and "
                                      f'`strategy="forward-mode"` are not supported together (yet). Please '
                                      f'either set `{name}={value}` or `strategy="reverse-mode"`.')
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                  "only implemented for `vectorize=True`.")


def jacobian(func, inputs):
    """(whether func returns a tuple, blocks): blocks[i][j] = d output_i / d input_j, shaped
    output_i.shape + input_j.shape, built from one J e_k per element k of the inputs."""
    columns, returned_tuple = None, False
    for j, x in enumerate(inputs):
        for unit in np.eye(x.numel(), dtype=x._array.dtype).reshape((x.numel(),) + x.shape):
            returned_tuple, tangents = _jvp(func, inputs, j, unit)
            if columns is None:
                columns = [[[] for _ in inputs] for _ in tangents]
            for i, tangent in enumerate(tangents):
                columns[i][j].append(tangent)
    return returned_tuple, tuple(
        tuple(make(np.stack(row[j], axis=-1).reshape(row[j][0].shape + x.shape)) for j, x in enumerate(inputs))
        for row in columns)


def _jvp(func, inputs, j, unit):
    """(whether func returns a tuple, J e as one array per output), with e `unit` on input j and
    zero elsewhere: the tangents of func's outputs, zeros for an output that carries none."""
    with forward_ad.dual_level():
        duals = tuple(forward_ad.make_dual(x, make(unit) if k == j else make(np.zeros_like(x._array)))
                      for k, x in enumerate(inputs))
        outputs = func(*duals)
        returned_tuple = isinstance(outputs, tuple)
        return returned_tuple, [_tangent_of(out) for out in (outputs if returned_tuple else (outputs,))]


def _tangent_of(out):
    """out's tangent as a new array: zeros where out carries none (it depends on no input)."""
    tangent = forward_ad.unpack_dual(out).tangent
    return np.zeros(out.shape, out._array.dtype) if tangent is None else tangent._array.copy()
