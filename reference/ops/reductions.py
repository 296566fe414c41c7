"""Reductions: sum and mean, over all elements or over dims, the MSE loss, and argmax.

Their nodes save only sizes (RETAIN-3): a second backward through them works. The backward spreads
the gradient back over the reduced dims, without copying (`expand_to`). A reduction is linear: in
forward mode it reduces the tangent as it reduced the values (`jvp`).
"""
import math

import numpy as np

from ..dual import jvp, unchanged
from ..graph import Node, record
from ..tensor import make
from .common import dims_of, expand_to, meta, output, sum_to, unary


def _kept_shape(shape, dims):
    """The shape of a keepdim result: what the gradient is reshaped to before it is expanded."""
    return tuple(1 if i in dims else n for i, n in enumerate(shape))


def _over(reduce, a, dim, keepdim):
    """The reduction of an array of a's shape: over every element, or over dims."""
    if dim is None:
        return lambda x: unary(reduce(x))
    dims = dims_of(a, dim)
    return lambda x: unary(reduce(x, axis=dims, keepdims=keepdim) if x.ndim else x.copy())


def sum(a, dim=None, keepdim=False):
    """Sum of all elements (SumBackward0) or over dims (SumBackward1); saves only sizes (RETAIN-3).
    sum(None, keepdim=True) sums over every dim, keeping each as 1 (SumBackward1), as torch does."""
    if dim is None and keepdim:
        dim = tuple(range(a.ndim))
    x = a._array
    reduce = _over(np.sum, a, dim, keepdim)
    out = reduce(x)
    if dim is None:
        node = record(SumBackward0, a)
    else:
        dims = dims_of(a, dim)
        node = record(SumBackward1, a)
        if node is not None:
            node.kept_shape = _kept_shape(x.shape, dims)
    if x.dtype.kind == "b":
        out = out.astype(np.int64)
    if node is not None:
        node.shape = x.shape
    return jvp(output(out, node), (a,), reduce)


class SumBackward0(Node):
    """d(sum a): the gradient spread over every element of a (OP-6)."""

    __slots__ = ("shape",)

    def backward(self, grad):
        return (expand_to(grad, self.shape),)


class SumBackward1(Node):
    """d(sum over dims): the gradient spread back over the reduced dims (OP-6)."""

    __slots__ = ("shape", "kept_shape")

    def backward(self, grad):
        return (expand_to(grad.reshape(self.kept_shape), self.shape),)


def mean(a, dim=None, keepdim=False):
    """Mean of all elements (MeanBackward0) or over dims (MeanBackward1): each gets 1/N (BC-5).
    mean(None, keepdim=True) is over every dim, keeping each as 1 (MeanBackward1), as in torch."""
    if dim is None and keepdim:
        dim = tuple(range(a.ndim))
    x = a._array
    if x.dtype.kind != "f":
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {a.dtype.torch_name}")
    reduce = _over(np.mean, a, dim, keepdim)
    out = reduce(x)
    if dim is None:
        node = record(MeanBackward0, a)
        count = x.size
    else:
        dims = dims_of(a, dim)
        node = record(MeanBackward1, a)
        count = math.prod(x.shape[d] for d in dims) if x.ndim else 1
        if node is not None:
            node.kept_shape = _kept_shape(x.shape, dims)
    if node is not None:
        node.shape, node.count = x.shape, count
    return jvp(output(out, node), (a,), reduce)


class MeanBackward0(Node):
    """d(mean a): the gradient spread over every element, over numel (OP-6, BC-5)."""

    __slots__ = ("shape", "count")

    def backward(self, grad):
        return (expand_to(grad, self.shape) / self.count,)


class MeanBackward1(Node):
    """d(mean over dims): spread back over them, over their size (OP-6, BC-5)."""

    __slots__ = ("shape", "kept_shape", "count")

    def backward(self, grad):
        return (expand_to(grad.reshape(self.kept_shape), self.shape) / self.count,)


def mse_loss(a, b, reduction="mean"):
    """mean((a - b)^2) in one node, as nn.MSELoss records it: MseLossBackward0 (MOD-15)."""
    difference = a._array - b._array
    total = {"mean": np.mean, "sum": np.sum}.get(reduction, unchanged)
    out = unary(total(difference ** 2))
    node = record(MseLossBackward0, a, b)
    if node is not None:
        node.save(a, b)
        node.metas, node.reduction = (meta(a), meta(b)), reduction
    return jvp(output(out, node), (a, b), lambda da: total(2 * difference * da),
               lambda db: total(-2 * difference * db))


class MseLossBackward0(Node):
    """d mse_loss: 2 (a - b) / n to a, n the broadcast size (2 (a - b) for reduction='sum'), its
    negative to b, each summed to its own shape (MOD-15)."""

    __slots__ = ("metas", "reduction")
    saved_names = ("self", "target")

    def backward(self, grad):
        a, b = self.saved(grad)
        n = math.prod(np.broadcast_shapes(self.metas[0][0], self.metas[1][0]))
        norm = 2.0 / n if self.reduction == "mean" else 2.0
        common = norm * (a - b) * grad
        return (sum_to(common, self.metas[0]) if self.needs_grad(0) else None,
                sum_to(-common, self.metas[1]) if self.needs_grad(1) else None)


def argmax(a, dim=None, keepdim=False):
    """The index of the largest element, of all (flattened) or along `dim`: an int64 result, never
    recorded, so it does not require grad whatever its input does (REQ-4)."""
    x = a._array
    index = x.argmax() if dim is None else x.argmax(axis=dim, keepdims=keepdim)
    return make(np.asarray(index, dtype=np.int64))
