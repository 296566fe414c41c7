"""Arithmetic: + - * / ** and negation, each forward (with its forward-mode derivative, `jvp`: one
rule per input, applied to that input's tangent) followed by its backward node.

Binary ops broadcast and promote like torch (`common.elementwise`); their backward sums each
gradient back to its input's shape and dtype (BC-1, BC-3). A reflected op with a Python number on
the left (`2 - x`, `2 / x`, `2 ** x`) records the node torch records for it (GFN-1).
"""
import math

import numpy as np

from .. import dtypes
from ..dual import jvp, unchanged
from ..graph import Node, record
from ..tensor import Tensor
from .common import ResultNode, conj, elementwise, log, meta, output, output_saved, requires, sum_to, value


def add(a, b):
    """a + b; saves nothing, so a second backward through it works (RETAIN-3)."""
    out, a, b = elementwise(np.add, a, b)
    node = record(AddBackward0, a, b)
    if node is not None:
        node.metas = (meta(a), meta(b))
    return jvp(output(out, node), (a, b), unchanged, unchanged)


class AddBackward0(Node):
    """d(a + b): the gradient to both sides, each summed back to its shape (OP-1)."""

    __slots__ = ("metas",)

    def backward(self, grad):
        return (sum_to(grad, self.metas[0]) if self.needs_grad(0) else None,
                sum_to(grad, self.metas[1]) if self.needs_grad(1) else None)


def sub(a, b):
    out, a, b = elementwise(np.subtract, a, b)
    node = record(SubBackward0, a, b)
    if node is not None:
        node.metas = (meta(a), meta(b))
    return jvp(output(out, node), (a, b), unchanged, np.negative)


class SubBackward0(Node):
    """d(a - b): grad to a and -grad to b, each summed back to its shape (OP-1)."""

    __slots__ = ("metas",)

    def backward(self, grad):
        return (sum_to(grad, self.metas[0]) if self.needs_grad(0) else None,
                sum_to(-grad, self.metas[1]) if self.needs_grad(1) else None)


def rsub(a, number):
    """number - a, for a Python number on the left (GFN-1: RsubBackward1)."""
    if not isinstance(number, (int, float)):
        return sub(number, a)
    out, number, a = elementwise(np.subtract, number, a)
    return jvp(output(out, record(RsubBackward1, a)), (a,), np.negative)


class RsubBackward1(Node):
    __slots__ = ()

    def backward(self, grad):
        return (-grad,)


def mul(a, b):
    """a * b; each side's gradient needs the other side, even a Python number (RETAIN-3, GFN-5)."""
    out, a, b = elementwise(np.multiply, a, b)
    node = record(MulBackward0, a, b)
    if node is not None:
        node.save(a if requires(b) else None, b if requires(a) else None)
        node.metas = (meta(a), meta(b))
    return jvp(output(out, node), (a, b), lambda da: da * value(b), lambda db: value(a) * db)


class MulBackward0(Node):
    """d(a * b): grad * b to a and grad * a to b, each summed back to its shape (OP-2); conjugated
    where complex (CPLX-3)."""

    __slots__ = ("metas",)
    saved_names = ("self", "other")

    def backward(self, grad):
        a, b = self.saved(grad)
        return (sum_to(grad * conj(b), self.metas[0]) if self.needs_grad(0) else None,
                sum_to(grad * conj(a), self.metas[1]) if self.needs_grad(1) else None)


def div(a, b):
    """a / b, true division: integer operands give float32 like torch."""
    out, a, b = elementwise(np.true_divide, a, b)
    if out.dtype.kind not in "fc" or out.dtype == np.float64 and dtypes.result_type(value(a), value(b)).kind != "f":
        out = out.astype(np.float32)  # NumPy gives float64 for integers
    node = record(DivBackward0, a, b)
    if node is not None:
        node.save(a if requires(b) else None, b)
        node.metas = (meta(a), meta(b))
    x, y = value(a), value(b)
    return jvp(output(out, node), (a, b), lambda da: da / y, lambda db: -db * ((x / y) / y))


class DivBackward0(Node):
    """d(a / b): grad / b to a and -grad * a / b^2 to b, each summed back (OP-2); conjugated
    where complex (CPLX-3)."""

    __slots__ = ("metas",)
    saved_names = ("self", "other")

    def backward(self, grad):
        a, b = self.saved(grad)
        return (sum_to(grad / conj(b), self.metas[0]) if self.needs_grad(0) else None,
                sum_to(-grad * conj((a / b) / b), self.metas[1]) if self.needs_grad(1) else None)


def rdiv(a, number):
    """number / a is reciprocal(a) * number in torch, hence MulBackward0 (GFN-1)."""
    if not isinstance(number, (int, float)):
        return div(number, a)
    if a._array.dtype.kind not in "fc":
        return div(number, a)
    result = output_saved(np.reciprocal(a._array, out=...), record(ReciprocalBackward0, a))
    return mul(jvp(result, (a,), lambda da: -da * (result._array * result._array)), number)


class ReciprocalBackward0(ResultNode):
    """d(1/a): -grad / a^2, NaN where a is 0 even if grad is 0 there: a mask applied after the
    division does not hide it (GRAD-15)."""

    __slots__ = ()

    def backward(self, grad):
        result, = self.saved(grad)
        return (-grad * conj(result * result),)


def neg(a):
    return jvp(output(np.negative(a._array, out=...), record(NegBackward0, a)), (a,), np.negative)


class NegBackward0(Node):
    """d(-a): -grad (OP-1)."""

    __slots__ = ()

    def backward(self, grad):
        return (-grad,)


def pow(a, exponent):
    """a ** exponent: PowBackward0 for a number exponent, PowBackward1 for a tensor (GFN-1)."""
    out, a, exponent = elementwise(np.power, a, exponent)
    x, k = value(a), value(exponent)
    if not isinstance(exponent, Tensor):
        out = output(out, record(PowBackward0, a), a, exponent)
        return jvp(out, (a,), np.zeros_like if k == 0 else lambda da: da * (k * x ** (k - 1)))
    node = record(PowBackward1, a, exponent)
    out = output(out, node)
    if node is not None:
        node.save(a, exponent, out.detach())
        node.metas = (meta(a), meta(exponent))
    return jvp(out, (a, exponent), lambda da: da * (k * x ** (k - 1)),
               lambda dk: dk * (out._array * log(x + (x == 0))))


class PowBackward0(Node):
    """d(a ** k) for a number k: grad * k * a^(k-1), negative a included (OP-4); conjugated where
    complex (CPLX-3)."""

    __slots__ = ()
    saved_names = ("self", "exponent")

    def backward(self, grad):
        a, k = self.saved(grad)
        if k == 0:
            return (grad * 0,)
        return (grad * conj(k * a ** (k - 1)),)


class PowBackward1(Node):
    __slots__ = ("metas",)
    saved_names = ("self", "exponent", "result")
    saves_result = True

    def backward(self, grad):
        a, k, result = self.saved(grad)
        return (sum_to(grad * (k * a ** (k - 1)), self.metas[0]) if self.needs_grad(0) else None,
                sum_to(grad * (result * log(a + (a == 0))), self.metas[1]) if self.needs_grad(1) else None)


def rpow(a, base):
    """base ** a for a Python number base (PowBackward2)."""
    if not isinstance(base, (int, float)):
        return pow(base, a)
    out, base, a = elementwise(np.power, base, a)
    node = record(PowBackward2, a)
    out = output(out, node)
    log_base = math.log(base) if base > 0 else math.nan
    if node is not None:
        node.save(a, out.detach())
        node.log_base = log_base
    return jvp(out, (a,), lambda da: da * (out._array * log_base))


class PowBackward2(Node):
    __slots__ = ("log_base",)
    saved_names = ("exponent", "result")
    saves_result = True

    def backward(self, grad):
        _, result = self.saved(grad)
        return (grad * (result * self.log_base),)
