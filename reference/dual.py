"""Forward-mode AD's state: the open dual level, and the tangents that tensors carry within it.

Inside `autograd.forward_ad.dual_level()` a tensor may carry a tangent v of its own shape (a
*dual* tensor, made by `make_dual`). Every op then computes, beside its result, the result's
tangent J v, the Jacobian-vector product, from its inputs' tangents (FWD-4): `jvp`, called by
each op of ops/ right after its forward, with the op's derivative with respect to each input
written as a rule on that input's tangent array (for `a * b`: `lambda da: da * b` and
`lambda db: a * db`, whose results add up). Reverse mode goes the other way, later: the backward
node below each op's forward. An input without a tangent moves in no direction: it adds nothing.

A tangent belongs to the level it was made in: closing the level ends every tangent at once,
without visiting a tensor (FWD-5). Grad mode does not matter (FWD-7): `no_grad` and `set_grad_enabled(False)`
stop recording, not tangents. `inference_mode` turns forward AD off (FWD-9): ops make no tangents, none is read.

This module knows no op: ops/ call `jvp`, autograd/forward_ad.py opens levels and makes duals.
"""
import contextlib

import numpy as np

from . import grad_mode
from .tensor import Tensor, make

_modes = grad_mode.state


class _State:
    __slots__ = ("level",)

    def __init__(self):
        self.level = None  # the open level (a new object per `with dual_level()`), or None


state = _State()


def tangent(t):
    """t's tangent, a Tensor, in the open level; None for a tensor that has none, outside a level
    and under inference_mode (FWD-3, FWD-5, FWD-9)."""
    entry = t._tangent
    if entry is None or entry[0] is not state.level or _modes.inference:
        return None
    return entry[1]


@contextlib.contextmanager
def primals_only():
    """Within the block no tensor has a tangent and ops make none: where a custom Function's
    forward and jvp run, on primals (FN-22)."""
    level, state.level = state.level, None
    try:
        yield
    finally:
        state.level = level


def set_tangent(t, tangent):
    """Give t the tangent `tangent` (a Tensor) in the open level."""
    t._tangent = (state.level, tangent)


def jvp(out, inputs, *rules):
    """`out`, the result of an op on `inputs`, with its tangent when an input has one: the op's
    Jacobian-vector product, the sum over the inputs that have a tangent t of rule(t), each
    input's rule being the op's derivative with respect to it applied to t (broadcast to out's
    shape where the op broadcast that input). Inputs without one (constants, Python numbers) add
    nothing. Only floating-point and complex results carry a tangent, of their own shape, in
    their dtype or the input tangents' where that is wider (a float64 or complex tangent of a
    float32 primal stays float64 or complex, as torch keeps it: FWD-4, FWD-6)."""
    if state.level is None or _modes.inference or out._array.dtype.kind not in "fc":
        return out
    given = [(rule, tangent(x)) for x, rule in zip(inputs, rules) if isinstance(x, Tensor)]
    given = [(rule, t._array) for rule, t in given if t is not None]
    if not given:
        return out
    shape = out._array.shape
    total = sum(np.broadcast_to(rule(t), shape) for rule, t in given)
    dtype = np.result_type(out._array.dtype, *(t.dtype for _, t in given))
    # a real result's tangent is real, also from complex ones (.real, .imag, abs); a complex
    # result's is complex, also from real ones (torch.complex(x, y) with only x dual)
    if not np.iscomplexobj(total) and out._array.dtype.kind == "f":
        dtype = np.empty(0, dtype).real.dtype
    set_tangent(out, make(np.array(total, dtype=dtype)))  # a copy: shares no memory
    return out


def unchanged(t):
    """The rule of an input that an op passes on as it is (a + b, clone): its tangent."""
    return t


def check_view_tangent(out, t, arguments):
    """The tangent t that a custom Function's jvp gives its output `out`, where `out` is one of
    the `arguments` (pairs of a tensor and the tangent jvp got for it, None where it had none)
    returned as it is or a view of one. As torch 2.13 checks it (FN-24): the argument that counts
    is the first one with out's forward base (a dual tensor is a base of its own, and a view has
    its base's); where that argument had a tangent, t must be a view of it, or of its base where
    it is itself a view."""
    def base(x):
        return x._fw_base if x._fw_base is not None else x
    matching = [given for a, given in arguments if base(a) is base(out)]
    if not matching or matching[0] is None:
        return
    given = matching[0]
    if t._fw_base is None:
        raise RuntimeError("A custom Function's forward is returning a view (or an input as-is) but the jvp is "
                           "not returning a view.")
    if t._fw_base is not base(given):
        raise RuntimeError("A custom Function is returning a view but the jvp is not returning a view of the "
                           + ("same base as the given grad input." if given._fw_base is not None
                              else "given grad input."))
