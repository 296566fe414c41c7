"""Elementwise functions of one tensor: exp, log, tanh, sigmoid, relu, sqrt, abs, sgn; comparisons.

Each forward gives its result's tangent (`jvp`, forward-mode AD) from its derivative, which its
backward node then applies to the incoming gradient. Where the derivative is cheapest in terms of
the output (exp, tanh, sigmoid, relu, sqrt), the node saves the output, so modifying that output
in place breaks backward (INP-6).
"""
import numpy as np

from ..dual import jvp
from ..graph import Node, record
from ..tensor import Tensor, make
from .common import ResultNode, as_operand, conj, output, output_saved, sign, unary, value


def exp(a):
    out = output_saved(np.exp(a._array, out=...), record(ExpBackward0, a))
    return jvp(out, (a,), lambda da: da * out._array)


class ExpBackward0(ResultNode):
    """d(exp a): grad * exp(a), from the saved result (OP-3), conjugated where complex (CPLX-3)."""

    __slots__ = ()

    def backward(self, grad):
        result, = self.saved(grad)
        return (grad * conj(result),)


def log(a):
    out = output(np.log(a._array, out=...), record(LogBackward0, a), a)
    return jvp(out, (a,), lambda da: da / a._array)


class LogBackward0(Node):
    """d(log a): grad / a (OP-3)."""

    __slots__ = ()
    saved_names = ("self",)

    def backward(self, grad):
        a, = self.saved(grad)
        return (grad / a,)


def tanh(a):
    out = output_saved(np.tanh(a._array, out=...), record(TanhBackward0, a))
    return jvp(out, (a,), lambda da: da * (1 - out._array * out._array))


class TanhBackward0(ResultNode):
    """d(tanh a): grad * (1 - tanh(a)^2), from the saved result (OP-3)."""

    __slots__ = ()

    def backward(self, grad):
        result, = self.saved(grad)
        return (grad * (1 - result * result),)


def sigmoid(a):
    """1 / (1 + exp(-a)), computed without overflow for large |a|."""
    x = a._array
    e = np.exp(-np.abs(x))
    out = unary(np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False))
    out = output_saved(out, record(SigmoidBackward0, a))
    return jvp(out, (a,), lambda da: da * ((1 - out._array) * out._array))


class SigmoidBackward0(ResultNode):
    """d(sigmoid a): grad * (1 - s) * s, s the saved result (OP-3)."""

    __slots__ = ()

    def backward(self, grad):
        result, = self.saved(grad)
        return (grad * ((1 - result) * result),)


def relu(a):
    out = output_saved(np.maximum(a._array, 0, out=...), record(ReluBackward0, a))
    return jvp(out, (a,), lambda da: da * (out._array > 0))


class ReluBackward0(ResultNode):
    """d(relu a): grad where the result is positive, else 0 (OP-5)."""

    __slots__ = ()

    def backward(self, grad):
        result, = self.saved(grad)
        if isinstance(grad, Tensor):
            return (threshold_backward(grad, result),)
        return (grad * (result > 0),)  # relu'(0) = 0 (GRAD-6)


def threshold_backward(grad, result):
    """relu's backward as a recorded op (create_graph), as torch records it."""
    out = np.multiply(grad._array, result._array > 0, out=...)
    return output(out, record(ThresholdBackwardBackward0, grad, result), result)


class ThresholdBackwardBackward0(Node):
    """The zero, not absent, gradient w.r.t. the result."""

    __slots__ = ()
    saved_names = ("self",)

    def backward(self, grad):
        result, = self.saved(grad)
        return (grad * (result > 0) if self.needs_grad(0) else None,
                grad * 0 if self.needs_grad(1) else None)


def sqrt(a):
    out = output_saved(np.sqrt(a._array, out=...), record(SqrtBackward0, a))
    return jvp(out, (a,), lambda da: da / (2 * out._array))


class SqrtBackward0(ResultNode):
    __slots__ = ()

    def backward(self, grad):
        result, = self.saved(grad)
        return (grad / (2 * result),)


def abs(a):
    out = output(np.abs(a._array, out=...), record(AbsBackward0, a), a)
    return jvp(out, (a,), lambda da: _abs_tangent(a._array, da))


def _abs_tangent(a, da):
    """d|a| along da: sign(a) da for real a; Re(conj(a) da) / |a| for complex a (0 at 0)."""
    if a.dtype.kind != "c":
        return da * np.sign(a)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(a == 0, 0.0, np.real(np.conj(a) * da) / np.abs(a))


class AbsBackward0(Node):
    __slots__ = ()
    saved_names = ("self",)

    def backward(self, grad):
        a, = self.saved(grad)
        return (grad * sign(a),)  # abs'(0) = 0 (GRAD-6)


def sgn(a):
    """The sign, whose gradient is zero, not absent; its tangent is zeros whatever the input's,
    nan and inf included, as torch's zero-tensor rule gives (FWD-12)."""
    return jvp(output(np.sign(a._array, out=...), record(SgnBackward0, a)), (a,), np.zeros_like)


class SgnBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return (grad * 0,)


def compare(ufunc, a, b):
    """Comparisons give bool tensors, which never require grad (REQ-4)."""
    return make(ufunc(value(a), value(as_operand(b)), out=...))
