"""Matrix products: matmul (mm, mv, dot), addmm and linear, as torch records them (GFN-1, MOD-14).

Each side's gradient needs the other side only, so a node saves an operand only when the other one
requires grad. In forward mode, the product rule: d(a @ b) = da @ b + a @ db (`jvp`).
"""
import numpy as np

from .. import dtypes
from ..dual import jvp, unchanged
from ..graph import Node, record
from .common import conj, meta, output, sum_to
from .views import reshape, t


def matmul(a, b):
    """a @ b for 1-D and 2-D operands: MmBackward0, MvBackward0 or DotBackward0 (GFN-1)."""
    x, y = a._array, b._array
    if x.ndim == 1 and y.ndim == 2:
        return reshape(matmul(reshape(a, (1, -1)), b), (-1,))
    if not (1 <= x.ndim <= 2 and 1 <= y.ndim <= 2):
        raise NotImplementedError("reference: matmul supports 1-D and 2-D operands only")
    _check_matmul(x, y)
    out = np.matmul(x, y, out=...)
    node_class = MmBackward0 if x.ndim == 2 and y.ndim == 2 else MvBackward0 if x.ndim == 2 else DotBackward0
    node = record(node_class, a, b)
    if node is not None:
        node.save(a if b._requires_grad else None, b if a._requires_grad else None)
    return jvp(output(out, node), (a, b), lambda da: da @ y, lambda db: x @ db)


def _check_matmul(x, y):
    if x.dtype != y.dtype:
        names = dtypes.from_numpy(x.dtype).c_name, dtypes.from_numpy(y.dtype).c_name
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {names[0]} != {names[1]}")
    if x.shape[-1] != y.shape[0]:
        if x.ndim == 2 and y.ndim == 2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({x.shape[0]}x{x.shape[1]} and "
                               f"{y.shape[0]}x{y.shape[1]})")
        raise RuntimeError(f"size mismatch, got input ({x.shape[0]}), mat ({'x'.join(map(str, y.shape))})")


class MmBackward0(Node):
    """d(a @ b) for 2-D a and b: grad @ b.T to a, a.T @ grad to b (OP-7), each operand conjugated
    where complex (CPLX-3)."""

    __slots__ = ()
    saved_names = ("self", "mat2")

    def backward(self, grad):
        a, b = self.saved(grad)
        return (grad @ conj(b).T if self.needs_grad(0) else None,
                conj(a).T @ grad if self.needs_grad(1) else None)


class MvBackward0(Node):
    """d(a @ v) for 2-D a and 1-D v: the outer product of grad and v to a, as torch's outer
    computes it (grad as a column times v itself, which broadcasts as a row: under create_graph
    the product's edges are grad's view and v's own node, GFN-1), a^T @ grad to v."""

    __slots__ = ()
    saved_names = ("self", "vec")

    def backward(self, grad):
        a, v = self.saved(grad)
        return (grad.reshape(-1, 1) * conj(v) if self.needs_grad(0) else None,
                conj(a).T @ grad if self.needs_grad(1) else None)


class DotBackward0(Node):
    __slots__ = ()
    saved_names = ("self", "tensor")

    def backward(self, grad):
        a, b = self.saved(grad)
        return (grad * conj(b) if self.needs_grad(0) else None,
                grad * conj(a) if self.needs_grad(1) else None)


def addmm(bias, m1, m2):
    """bias + m1 @ m2 in one node, as nn.Linear records it: AddmmBackward0 (MOD-14)."""
    x, y = m1._array, m2._array
    _check_matmul(x, y)
    out = x @ y
    out += bias._array
    node = record(AddmmBackward0, bias, m1, m2)
    if node is not None:
        node.save(m1 if m2._requires_grad else None, m2 if m1._requires_grad else None)
        node.bias_meta = meta(bias)
    return jvp(output(out, node), (bias, m1, m2), unchanged, lambda d1: d1 @ y, lambda d2: x @ d2)


class AddmmBackward0(Node):
    """d(bias + mat1 @ mat2): bias gets the gradient summed to its shape, mat1 grad @ mat2^T,
    mat2 mat1^T @ grad. For nn.Linear (mat1 = x, mat2 = W^T, TBackward0 turning its gradient back):
    bias.grad is v summed over the batch, x.grad = v W, weight.grad = v^T x (MOD-14)."""

    __slots__ = ("bias_meta",)
    saved_names = ("mat1", "mat2")

    def backward(self, grad):
        m1, m2 = self.saved(grad)
        return (sum_to(grad, self.bias_meta) if self.needs_grad(0) else None,
                grad @ m2.T if self.needs_grad(1) else None,
                m1.T @ grad if self.needs_grad(2) else None)


def linear(x, weight, bias=None):
    """x @ weight.T + bias as torch's F.linear records it: AddmmBackward0 over TBackward0 (MOD-14)."""
    if x._array.ndim != 2:
        flat = reshape(x, (-1, x._array.shape[-1]))
        return reshape(linear(flat, weight, bias), x._array.shape[:-1] + (weight._array.shape[0],))
    if bias is None:
        return matmul(x, t(weight))
    return addmm(bias, x, t(weight))
