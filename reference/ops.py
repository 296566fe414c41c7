"""The op set: each op's forward and, right beside it, its backward node.

An op computes its result with NumPy. When grad mode is on and an input requires grad, it also
creates its node (named like torch's, GFN-1), saves what the backward formula needs and nothing else
(what is saved decides which graphs can be backpropagated twice, RETAIN-3), and returns a non-leaf.
Otherwise it returns a plain leaf: that fast path is most of the calls.

Backward formulas get the incoming gradient as a NumPy array (or NumPy scalar: NumPy's result for
0-dim operands), or as a Tensor under create_graph
(graph.py explains why). They use operators, which both kinds share, and the few helpers of the
"two spellings" section below for the rest.
"""
import math

import numpy as np

from . import dtypes, grad_mode
from .graph import Node
from .tensor import INPLACE_INFERENCE_MESSAGE, Tensor, make

# torch computes inf and nan silently (GRAD-7); NumPy would warn on every overflow or 0/0.
np.seterr(all="ignore")

_state = grad_mode.state


# ----- operands and results -----------------------------------------------------------------------
def _value(x):
    """The NumPy value of an operand: a Tensor's array, or the Python number itself."""
    return x._array if isinstance(x, Tensor) else x


def _requires(x):
    return isinstance(x, Tensor) and x._requires_grad


def _meta(x):
    """What a gradient must be reduced to for input x: its (shape, dtype) (BC-1, BC-3)."""
    return (x._array.shape, x._array.dtype) if isinstance(x, Tensor) else None


def _as_operand(x):
    """Operands are Tensors, Python numbers or (internally) arrays; lists become arrays."""
    if isinstance(x, (Tensor, int, float, np.ndarray)):
        return x
    if isinstance(x, (list, tuple, np.generic)):
        return np.asarray(x)
    raise TypeError(f"unsupported operand type: '{type(x).__name__}'")


def _operand_error(x, y, error):
    """torch's RuntimeError for NumPy's ValueError: shapes that do not broadcast, or another refusal
    (integers to negative integer powers)."""
    sa, sb = np.shape(x), np.shape(y)
    for i in range(1, min(len(sa), len(sb)) + 1):
        if sa[-i] != sb[-i] and sa[-i] != 1 and sb[-i] != 1:
            return RuntimeError(f"The size of tensor a ({sa[-i]}) must match the size of tensor b ({sb[-i]}) "
                                f"at non-singleton dimension {max(len(sa), len(sb)) - i}")
    return RuntimeError(str(error))


_NUMBERS = (int, float)


def _elementwise(ufunc, a, b):
    """ufunc(a, b) as an array with torch's dtype, and the two operands (lists made arrays).

    NumPy and torch promote differently (BC-3); the common cases, where they agree, are checked
    first: same-dtype tensors, or a floating-point tensor with a Python number.
    """
    a_tensor, b_tensor = isinstance(a, Tensor), isinstance(b, Tensor)
    x = a._array if a_tensor else _as_operand(a)
    y = b._array if b_tensor else _as_operand(b)
    try:
        out = ufunc(x, y, out=...)
    except ValueError as error:
        raise _operand_error(x, y, error) from None
    if a_tensor and b_tensor:
        if x.dtype == y.dtype:
            return out, a, b
    elif a_tensor and type(y) in _NUMBERS and (x.dtype.kind == "f" or type(y) is int):
        return out, a, y
    elif b_tensor and type(x) in _NUMBERS and (y.dtype.kind == "f" or type(x) is int):
        return out, x, b
    want = dtypes.result_type(x, y)
    return (out if out.dtype == want else out.astype(want)), (a if a_tensor else x), (b if b_tensor else y)


def _unary(x):
    """NumPy reductions return scalars for 0-dim results (ufuncs called with out=... do not);
    tensors always hold arrays."""
    return x if type(x) is np.ndarray else np.asarray(x)


# ----- the two spellings: helpers for formulas that run on arrays or on Tensors -------------------
def sum_to(grad, meta):
    """Sum a broadcast gradient back to an input's shape and cast it to its dtype (BC-1, BC-3)."""
    shape, dtype = meta
    if grad.shape != shape:
        lead = grad.ndim - len(shape)
        if lead < 0:  # the input had extra leading 1s (assigning a [1, 3] value into a [3] slot)
            return sum_to(grad.reshape(shape), meta)
        dims = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(shape) if n == 1 and grad.shape[lead + i] != 1)
        grad = (sum(grad, dims) if isinstance(grad, Tensor) else grad.sum(axis=dims)).reshape(shape)
    if isinstance(grad, Tensor):
        return grad if grad._array.dtype == dtype else to(grad, dtypes.from_numpy(dtype))
    return grad if grad.dtype == dtype else grad.astype(dtype)


def cast(grad, dtype):
    """The gradient in another dtype (ToCopyBackward0)."""
    if isinstance(grad, Tensor):
        return to(grad, dtypes.from_numpy(dtype))
    return grad.astype(dtype)


def expand_to(grad, shape):
    """The gradient broadcast to shape, without copying (SumBackward, MeanBackward)."""
    return expand(grad, shape) if isinstance(grad, Tensor) else np.broadcast_to(grad, shape)


def swap_dims(grad, dim0, dim1):
    return transpose(grad, dim0, dim1) if isinstance(grad, Tensor) else np.swapaxes(grad, dim0, dim1)


def zeros_for(grad, shape):
    """A zero gradient of the given shape, of the same kind and dtype as grad."""
    if isinstance(grad, Tensor):
        return make(np.zeros(shape, grad._array.dtype))
    return np.zeros(shape, grad.dtype)


# ----- arithmetic ---------------------------------------------------------------------------------
class AddBackward0(Node):
    __slots__ = ("metas",)

    def backward(self, grad):
        return (sum_to(grad, self.metas[0]) if self.needs_grad(0) else None,
                sum_to(grad, self.metas[1]) if self.needs_grad(1) else None)


def add(a, b):
    """a + b; saves nothing, so a second backward through it works (RETAIN-3)."""
    out, a, b = _elementwise(np.add, a, b)
    if _state.enabled and (_requires(a) or _requires(b)):
        node = AddBackward0(a, b)
        node.metas = (_meta(a), _meta(b))
        return make(out, True, node)
    return make(out)


class SubBackward0(Node):
    __slots__ = ("metas",)

    def backward(self, grad):
        return (sum_to(grad, self.metas[0]) if self.needs_grad(0) else None,
                sum_to(-grad, self.metas[1]) if self.needs_grad(1) else None)


def sub(a, b):
    out, a, b = _elementwise(np.subtract, a, b)
    if _state.enabled and (_requires(a) or _requires(b)):
        node = SubBackward0(a, b)
        node.metas = (_meta(a), _meta(b))
        return make(out, True, node)
    return make(out)


class RsubBackward1(Node):
    __slots__ = ()

    def backward(self, grad):
        return (-grad,)


def rsub(a, number):
    """number - a, for a Python number on the left (GFN-1: RsubBackward1)."""
    if not isinstance(number, (int, float)):
        return sub(number, a)
    out, number, a = _elementwise(np.subtract, number, a)
    if _state.enabled and a._requires_grad:
        return make(out, True, RsubBackward1(a))
    return make(out)


class MulBackward0(Node):
    __slots__ = ("metas",)
    saved_names = ("self", "other")

    def backward(self, grad):
        a, b = self.saved(grad)
        return (sum_to(grad * b, self.metas[0]) if self.needs_grad(0) else None,
                sum_to(grad * a, self.metas[1]) if self.needs_grad(1) else None)


def mul(a, b):
    """a * b; each side's gradient needs the other side, even a Python number (RETAIN-3, GFN-5)."""
    out, a, b = _elementwise(np.multiply, a, b)
    if _state.enabled and (_requires(a) or _requires(b)):
        node = MulBackward0(a, b)
        node.save(a if _requires(b) else None, b if _requires(a) else None)
        node.metas = (_meta(a), _meta(b))
        return make(out, True, node)
    return make(out)


class DivBackward0(Node):
    __slots__ = ("metas",)
    saved_names = ("self", "other")

    def backward(self, grad):
        a, b = self.saved(grad)
        return (sum_to(grad / b, self.metas[0]) if self.needs_grad(0) else None,
                sum_to(-grad * ((a / b) / b), self.metas[1]) if self.needs_grad(1) else None)


def div(a, b):
    """a / b, true division: integer operands give float32 like torch."""
    out, a, b = _elementwise(np.true_divide, a, b)
    if out.dtype.kind != "f" or out.dtype == np.float64 and dtypes.result_type(_value(a), _value(b)).kind != "f":
        out = out.astype(np.float32)  # NumPy gives float64 for integers
    if _state.enabled and (_requires(a) or _requires(b)):
        node = DivBackward0(a, b)
        node.save(a if _requires(b) else None, b)
        node.metas = (_meta(a), _meta(b))
        return make(out, True, node)
    return make(out)


class ReciprocalBackward0(Node):
    __slots__ = ()
    saved_names = ("result",)
    saves_result = True

    def backward(self, grad):
        result, = self.saved(grad)
        return (-grad * (result * result),)


def rdiv(a, number):
    """number / a is reciprocal(a) * number in torch, hence MulBackward0 (GFN-1)."""
    if not isinstance(number, (int, float)):
        return div(number, a)
    if a._array.dtype.kind != "f":
        return div(number, a)
    out = make(np.reciprocal(a._array, out=...))
    if _state.enabled and a._requires_grad:
        node = ReciprocalBackward0(a)
        out = make(out._array, True, node)
        node.save(out.detach())
    return mul(out, number)


class NegBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return (-grad,)


def neg(a):
    out = np.negative(a._array, out=...)
    if _state.enabled and a._requires_grad:
        return make(out, True, NegBackward0(a))
    return make(out)


class PowBackward0(Node):
    __slots__ = ()
    saved_names = ("self", "exponent")

    def backward(self, grad):
        a, k = self.saved(grad)
        if k == 0:
            return (grad * 0,)
        return (grad * (k * a ** (k - 1)),)


class PowBackward1(Node):
    __slots__ = ("metas",)
    saved_names = ("self", "exponent", "result")
    saves_result = True

    def backward(self, grad):
        a, k, result = self.saved(grad)
        return (sum_to(grad * (k * a ** (k - 1)), self.metas[0]) if self.needs_grad(0) else None,
                sum_to(grad * (result * log(a + (a == 0))), self.metas[1]) if self.needs_grad(1) else None)


def pow(a, exponent):
    """a ** exponent: PowBackward0 for a number exponent, PowBackward1 for a tensor (GFN-1)."""
    out, a, exponent = _elementwise(np.power, a, exponent)
    if not (_state.enabled and (_requires(a) or _requires(exponent))):
        return make(out)
    if not isinstance(exponent, Tensor):
        node = PowBackward0(a)
        node.save(a, exponent)
        return make(out, True, node)
    node = PowBackward1(a, exponent)
    result = make(out, True, node)
    node.save(a, exponent, result.detach())
    node.metas = (_meta(a), _meta(exponent))
    return result


class PowBackward2(Node):
    __slots__ = ("log_base",)
    saved_names = ("exponent", "result")
    saves_result = True

    def backward(self, grad):
        _, result = self.saved(grad)
        return (grad * (result * self.log_base),)


def rpow(a, base):
    """base ** a for a Python number base (PowBackward2)."""
    if not isinstance(base, (int, float)):
        return pow(base, a)
    out, base, a = _elementwise(np.power, base, a)
    if _state.enabled and a._requires_grad:
        node = PowBackward2(a)
        result = make(out, True, node)
        node.save(a, result.detach())
        node.log_base = math.log(base) if base > 0 else math.nan
        return result
    return make(out)


# ----- elementwise functions ----------------------------------------------------------------------
class ExpBackward0(Node):
    __slots__ = ()
    saved_names = ("result",)
    saves_result = True

    def backward(self, grad):
        result, = self.saved(grad)
        return (grad * result,)


def _with_saved_result(array, node):
    """The output of an op whose backward needs that output (exp, tanh, sigmoid, relu; INP-6)."""
    out = make(array, True, node)
    node.save(out.detach())
    return out


def exp(a):
    out = np.exp(a._array, out=...)
    if _state.enabled and a._requires_grad:
        return _with_saved_result(out, ExpBackward0(a))
    return make(out)


class LogBackward0(Node):
    __slots__ = ()
    saved_names = ("self",)

    def backward(self, grad):
        a, = self.saved(grad)
        return (grad / a,)


def log(a):
    out = np.log(a._array, out=...)
    if _state.enabled and a._requires_grad:
        node = LogBackward0(a)
        node.save(a)
        return make(out, True, node)
    return make(out)


class TanhBackward0(Node):
    __slots__ = ()
    saved_names = ("result",)
    saves_result = True

    def backward(self, grad):
        result, = self.saved(grad)
        return (grad * (1 - result * result),)


def tanh(a):
    out = np.tanh(a._array, out=...)
    if _state.enabled and a._requires_grad:
        return _with_saved_result(out, TanhBackward0(a))
    return make(out)


class SigmoidBackward0(Node):
    __slots__ = ()
    saved_names = ("result",)
    saves_result = True

    def backward(self, grad):
        result, = self.saved(grad)
        return (grad * ((1 - result) * result),)


def sigmoid(a):
    """1 / (1 + exp(-a)), computed without overflow for large |a|."""
    x = a._array
    e = np.exp(-np.abs(x))
    out = _unary(np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False))
    if _state.enabled and a._requires_grad:
        return _with_saved_result(out, SigmoidBackward0(a))
    return make(out)


class ReluBackward0(Node):
    __slots__ = ()
    saved_names = ("result",)
    saves_result = True

    def backward(self, grad):
        result, = self.saved(grad)
        if isinstance(grad, Tensor):
            return (threshold_backward(grad, result),)
        return (grad * (result > 0),)  # relu'(0) = 0 (GRAD-6)


class ThresholdBackwardBackward0(Node):
    """relu's backward as a recorded op (create_graph): zero, not absent, gradient w.r.t. the result."""

    __slots__ = ()
    saved_names = ("self",)

    def backward(self, grad):
        result, = self.saved(grad)
        return (grad * (result > 0) if self.needs_grad(0) else None,
                grad * 0 if self.needs_grad(1) else None)


def threshold_backward(grad, result):
    out = np.multiply(grad._array, result._array > 0, out=...)
    if _state.enabled and (grad._requires_grad or result._requires_grad):
        node = ThresholdBackwardBackward0(grad, result)
        node.save(result)
        return make(out, True, node)
    return make(out)


def relu(a):
    out = np.maximum(a._array, 0, out=...)
    if _state.enabled and a._requires_grad:
        return _with_saved_result(out, ReluBackward0(a))
    return make(out)


class SqrtBackward0(Node):
    __slots__ = ()
    saved_names = ("result",)
    saves_result = True

    def backward(self, grad):
        result, = self.saved(grad)
        return (grad / (2 * result),)


def sqrt(a):
    out = np.sqrt(a._array, out=...)
    if _state.enabled and a._requires_grad:
        return _with_saved_result(out, SqrtBackward0(a))
    return make(out)


class AbsBackward0(Node):
    __slots__ = ()
    saved_names = ("self",)

    def backward(self, grad):
        a, = self.saved(grad)
        return (grad * (sgn(a) if isinstance(a, Tensor) else np.sign(a)),)  # abs'(0) = 0 (GRAD-6)


class SgnBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return (grad * 0,)


def sgn(a):
    """The sign, whose gradient is zero (GRAD-5), not absent."""
    out = np.sign(a._array, out=...)
    if _state.enabled and a._requires_grad:
        return make(out, True, SgnBackward0(a))
    return make(out)


def abs(a):
    out = np.abs(a._array, out=...)
    if _state.enabled and a._requires_grad:
        node = AbsBackward0(a)
        node.save(a)
        return make(out, True, node)
    return make(out)


def compare(ufunc, a, b):
    """Comparisons give bool tensors, which never require grad (REQ-4)."""
    return make(ufunc(_value(a), _value(_as_operand(b)), out=...))


# ----- reductions ---------------------------------------------------------------------------------
def _dims(a, dim):
    """dim (int or sequence) as a sorted tuple of non-negative dims, with torch's range error."""
    ndim = a._array.ndim
    low, high = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    for d in dims:
        if not low <= d <= high:
            raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], but got {d})")
    return tuple(sorted({d % ndim if ndim else 0 for d in dims}))


class SumBackward0(Node):
    __slots__ = ("shape",)

    def backward(self, grad):
        return (expand_to(grad, self.shape),)


class SumBackward1(Node):
    __slots__ = ("shape", "kept_shape")

    def backward(self, grad):
        return (expand_to(grad.reshape(self.kept_shape), self.shape),)


def sum(a, dim=None, keepdim=False):
    """Sum of all elements (SumBackward0) or over dims (SumBackward1); saves only sizes (RETAIN-3)."""
    x = a._array
    if dim is None:
        out = _unary(x.sum())
        node = SumBackward0(a) if _state.enabled and a._requires_grad else None
    else:
        dims = _dims(a, dim)
        out = _unary(x.sum(axis=dims, keepdims=keepdim) if x.ndim else x.copy())
        node = SumBackward1(a) if _state.enabled and a._requires_grad else None
        if node is not None:
            node.kept_shape = tuple(1 if i in dims else n for i, n in enumerate(x.shape))
    if x.dtype.kind == "b":
        out = out.astype(np.int64)
    if node is None:
        return make(out)
    node.shape = x.shape
    return make(out, True, node)


class MeanBackward0(Node):
    __slots__ = ("shape", "count")

    def backward(self, grad):
        return (expand_to(grad, self.shape) / self.count,)


class MeanBackward1(Node):
    __slots__ = ("shape", "kept_shape", "count")

    def backward(self, grad):
        return (expand_to(grad.reshape(self.kept_shape), self.shape) / self.count,)


def mean(a, dim=None, keepdim=False):
    """Mean of all elements (MeanBackward0) or over dims (MeanBackward1): each gets 1/N (BC-5)."""
    x = a._array
    if x.dtype.kind != "f":
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {a.dtype.torch_name}")
    if dim is None:
        out = _unary(x.mean())
        node = MeanBackward0(a) if _state.enabled and a._requires_grad else None
        count = x.size
    else:
        dims = _dims(a, dim)
        out = _unary(x.mean(axis=dims, keepdims=keepdim) if x.ndim else x.copy())
        node = MeanBackward1(a) if _state.enabled and a._requires_grad else None
        count = math.prod(x.shape[d] for d in dims) if x.ndim else 1
        if node is not None:
            node.kept_shape = tuple(1 if i in dims else n for i, n in enumerate(x.shape))
    if node is None:
        return make(out)
    node.shape, node.count = x.shape, count
    return make(out, True, node)


# ----- views: share storage and version counter with their base (INP-10) ---------------------------
def _view(a, array, node, key=None):
    """The result of a view op: shares the base's version counter; `key` locates index views."""
    out = make(array, node is not None, node)
    out._counter = a._shared_counter()
    out._base = a._base if a._base is not None else a
    if a._base is None:
        out._view_key = key
    return out


class ViewBackward0(Node):
    __slots__ = ("shape",)

    def backward(self, grad):
        return (grad.reshape(self.shape),)


def reshape(a, shape):
    """reshape/view (ViewBackward0, GFN-1); accepts a tuple or separate ints."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    x = a._array
    try:
        out = x.reshape(shape)
    except ValueError:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {x.size}") from None
    node = None
    if _state.enabled and a._requires_grad:
        node = ViewBackward0(a)
        node.shape = x.shape
    if np.may_share_memory(out, x):
        return _view(a, out, node)
    return make(out, node is not None, node)


class UnsqueezeBackward0(ViewBackward0):
    __slots__ = ()


def unsqueeze(a, dim):
    x = a._array
    out = np.expand_dims(x, dim if dim >= 0 else dim + x.ndim + 1)
    node = None
    if _state.enabled and a._requires_grad:
        node = UnsqueezeBackward0(a)
        node.shape = x.shape
    return _view(a, out, node)


class ExpandBackward0(Node):
    __slots__ = ("meta",)

    def backward(self, grad):
        return (sum_to(grad, self.meta),)


def expand(a, sizes):
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    x = a._array
    lead = len(sizes) - x.ndim
    shape = tuple(x.shape[i - lead] if n == -1 else n for i, n in enumerate(sizes))
    node = None
    if _state.enabled and a._requires_grad:
        node = ExpandBackward0(a)
        node.meta = _meta(a)
    return _view(a, np.broadcast_to(x, shape), node)


class TransposeBackward0(Node):
    __slots__ = ("dims",)

    def backward(self, grad):
        return (swap_dims(grad, *self.dims) if self.dims else grad,)


class TBackward0(TransposeBackward0):
    __slots__ = ()


class PermuteBackward0(TransposeBackward0):
    __slots__ = ()


def _transposed(a, dim0, dim1, node_class):
    x = a._array
    dims = (_dims(a, dim0)[0], _dims(a, dim1)[0]) if x.ndim >= 2 else None
    node = None
    if _state.enabled and a._requires_grad:
        node = node_class(a)
        node.dims = dims
    return _view(a, np.swapaxes(x, *dims) if dims else x.view(), node)


def transpose(a, dim0, dim1):
    return _transposed(a, dim0, dim1, TransposeBackward0)


def t(a):
    """x.t() records TBackward0 while x.T records PermuteBackward0 (GFN-1)."""
    if a._array.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a._array.ndim}D")
    return _transposed(a, 0, 1, TBackward0)


def permute_reversed(a):
    """x.T: all dims reversed (PermuteBackward0); for 2-D the same as a transpose."""
    if a._array.ndim > 2:
        raise NotImplementedError("reference: x.T is only supported for tensors of at most 2 dims")
    return _transposed(a, 0, 1, PermuteBackward0)


# ----- indexing -----------------------------------------------------------------------------------
class SelectBackward0(Node):
    __slots__ = ("shape", "key")

    def backward(self, grad):
        full = zeros_for(grad, self.shape)
        full[self.key] = grad
        return (full,)


class SliceBackward0(SelectBackward0):
    __slots__ = ()


class AsStridedBackward0(SelectBackward0):
    """A view re-read from its base after an in-place op on the view (INP-13)."""

    __slots__ = ()


class IndexBackward0(SelectBackward0):
    """Any other key: NumPy indexing; repeated indices add up in the gradient."""

    __slots__ = ()

    def backward(self, grad):
        if not isinstance(grad, Tensor):
            full = np.zeros(self.shape, grad.dtype)
            np.add.at(full, self.key, grad)
            return (full,)
        return super().backward(grad)


def _index_once(a, key, node_class):
    """One select, slice or general index; the first two are views."""
    x = a._array
    try:
        out = x[key]
    except IndexError as error:
        raise IndexError(str(error).replace("axis", "dimension")) from None
    node = None
    if _state.enabled and a._requires_grad:
        node = node_class(a)
        node.shape, node.key = x.shape, key
    if node_class is IndexBackward0 and not np.may_share_memory(out, x):
        return make(_unary(out), node is not None, node)
    return _view(a, out, node, key)


def index(a, key):
    """a[key]: ints and slices become a chain of SelectBackward0 / SliceBackward0 views (GFN-1)."""
    parts = key if isinstance(key, tuple) else (key,)
    parts = tuple(int(k) if isinstance(k, Tensor) and k._array.ndim == 0 and k._array.dtype.kind in "iu" else k
                  for k in parts)
    if not all(isinstance(k, (int, slice)) for k in parts):
        key = tuple(k._array if isinstance(k, Tensor) else k for k in parts)
        return _index_once(a, key if len(key) != 1 else key[0], IndexBackward0)
    if len(parts) > a._array.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a._array.ndim}")
    out, dim = a, 0
    for k in parts:
        lead = (slice(None),) * dim
        if isinstance(k, int):
            size = out._array.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {size}")
            out = _index_once(out, lead + (k, Ellipsis), SelectBackward0)
        else:
            if k != slice(None):  # a full slice is no op (x[:, 0] is one SelectBackward0)
                out = _index_once(out, lead + (k,), SliceBackward0)
            dim += 1
    return out if out is not a else _index_once(a, (slice(None),), SliceBackward0)


class CopySlices(Node):
    """t[key] = value: the overwritten part of t gets no gradient; value gets grad[key] (INP-12, GFN-6)."""

    __slots__ = ("shape", "key", "value_meta")

    def name(self):
        return "torch::autograd::CopySlices"

    def backward(self, grad):
        kept = None
        if self.needs_grad(0):
            mask = np.ones(self.shape, grad._array.dtype if isinstance(grad, Tensor) else grad.dtype)
            mask[self.key] = 0
            kept = grad * mask
        value = sum_to(grad[self.key], self.value_meta) if self.needs_grad(1) else None
        return kept, value


def index_put(a, key, value):
    """a[key] = value, recorded as CopySlices when a gradient can flow through it (INP-14)."""
    if isinstance(key, Tensor):
        key = key._array
    elif isinstance(key, tuple):
        key = tuple(k._array if isinstance(k, Tensor) else k for k in key)
    value = _as_operand(value)
    _check_inplace(a, VIEW_OF_LEAF_MESSAGE)
    if not (_state.enabled and (a._requires_grad or _requires(value))):
        a._array[key] = _value(value)
        a._bump_version()
        return
    node = CopySlices(a, value)
    node.shape, node.key, node.value_meta = a._array.shape, key, _meta(value)
    a._array[key] = _value(value)
    _rebase(a, node)


# ----- matrix products ----------------------------------------------------------------------------
class MmBackward0(Node):
    __slots__ = ()
    saved_names = ("self", "mat2")

    def backward(self, grad):
        a, b = self.saved(grad)
        return (grad @ b.T if self.needs_grad(0) else None,
                a.T @ grad if self.needs_grad(1) else None)


class MvBackward0(Node):
    __slots__ = ()
    saved_names = ("self", "vec")

    def backward(self, grad):
        a, v = self.saved(grad)
        return (grad.reshape(-1, 1) * v.reshape(1, -1) if self.needs_grad(0) else None,
                a.T @ grad if self.needs_grad(1) else None)


class DotBackward0(Node):
    __slots__ = ()
    saved_names = ("self", "tensor")

    def backward(self, grad):
        a, b = self.saved(grad)
        return (grad * b if self.needs_grad(0) else None,
                grad * a if self.needs_grad(1) else None)


def _check_matmul(x, y):
    if x.dtype != y.dtype:
        names = dtypes.from_numpy(x.dtype).c_name, dtypes.from_numpy(y.dtype).c_name
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {names[0]} != {names[1]}")
    if x.shape[-1] != y.shape[0]:
        if x.ndim == 2 and y.ndim == 2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({x.shape[0]}x{x.shape[1]} and "
                               f"{y.shape[0]}x{y.shape[1]})")
        raise RuntimeError(f"size mismatch, got input ({x.shape[0]}), mat ({'x'.join(map(str, y.shape))})")


def matmul(a, b):
    """a @ b for 1-D and 2-D operands: MmBackward0, MvBackward0 or DotBackward0 (GFN-1)."""
    x, y = a._array, b._array
    if x.ndim == 1 and y.ndim == 2:
        return reshape(matmul(reshape(a, (1, -1)), b), (-1,))
    if not (1 <= x.ndim <= 2 and 1 <= y.ndim <= 2):
        raise NotImplementedError("reference: matmul supports 1-D and 2-D operands only")
    _check_matmul(x, y)
    out = np.matmul(x, y, out=...)
    if not (_state.enabled and (a._requires_grad or b._requires_grad)):
        return make(out)
    node_class = MmBackward0 if x.ndim == 2 and y.ndim == 2 else MvBackward0 if x.ndim == 2 else DotBackward0
    node = node_class(a, b)
    node.save(a if b._requires_grad else None, b if a._requires_grad else None)
    return make(out, True, node)


class AddmmBackward0(Node):
    __slots__ = ("bias_meta",)
    saved_names = ("mat1", "mat2")

    def backward(self, grad):
        m1, m2 = self.saved(grad)
        return (sum_to(grad, self.bias_meta) if self.needs_grad(0) else None,
                grad @ m2.T if self.needs_grad(1) else None,
                m1.T @ grad if self.needs_grad(2) else None)


def addmm(bias, m1, m2):
    """bias + m1 @ m2 in one node, as nn.Linear records it (GFN-2: AddmmBackward0)."""
    x, y = m1._array, m2._array
    _check_matmul(x, y)
    out = x @ y
    out += bias._array
    if not (_state.enabled and (bias._requires_grad or m1._requires_grad or m2._requires_grad)):
        return make(out)
    node = AddmmBackward0(bias, m1, m2)
    node.save(m1 if m2._requires_grad else None, m2 if m1._requires_grad else None)
    node.bias_meta = _meta(bias)
    return make(out, True, node)


def linear(x, weight, bias=None):
    """x @ weight.T + bias as torch's F.linear records it: AddmmBackward0 over TBackward0 (GFN-2)."""
    if x._array.ndim != 2:
        flat = reshape(x, (-1, x._array.shape[-1]))
        return reshape(linear(flat, weight, bias), x._array.shape[:-1] + (weight._array.shape[0],))
    if bias is None:
        return matmul(x, t(weight))
    return addmm(bias, x, t(weight))


# ----- copies and conversions ---------------------------------------------------------------------
class CloneBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return (grad,)


def clone(a):
    """A copy that stays in the graph (LEAF-3: a non-leaf)."""
    out = a._array.copy()
    if _state.enabled and a._requires_grad:
        return make(out, True, CloneBackward0(a))
    return make(out)


class ToCopyBackward0(Node):
    __slots__ = ("dtype",)

    def backward(self, grad):
        return (cast(grad, self.dtype),)


def to(a, dtype):
    """A dtype conversion: the same tensor if nothing changes (LEAF-4), else ToCopyBackward0 (LEAF-3)."""
    if isinstance(dtype, str):
        return a
    if a._array.dtype == dtype.numpy:
        return a
    out = a._array.astype(dtype.numpy)
    if _state.enabled and a._requires_grad and dtype.is_floating_point:
        node = ToCopyBackward0(a)
        node.dtype = a._array.dtype
        return make(out, True, node)
    return make(out)


class MseLossBackward0(Node):
    __slots__ = ("metas", "reduction")
    saved_names = ("self", "target")

    def backward(self, grad):
        a, b = self.saved(grad)
        n = math.prod(np.broadcast_shapes(self.metas[0][0], self.metas[1][0]))
        norm = 2.0 / n if self.reduction == "mean" else 2.0
        common = norm * (a - b) * grad
        return (sum_to(common, self.metas[0]) if self.needs_grad(0) else None,
                sum_to(-common, self.metas[1]) if self.needs_grad(1) else None)


def mse_loss(a, b, reduction="mean"):
    """mean((a - b)^2) in one node, as nn.MSELoss records it (GFN-2: MseLossBackward0)."""
    squared = (a._array - b._array) ** 2
    out = _unary(squared.mean() if reduction == "mean" else squared.sum() if reduction == "sum" else squared)
    if not (_state.enabled and (a._requires_grad or b._requires_grad)):
        return make(out)
    node = MseLossBackward0(a, b)
    node.save(a, b)
    node.metas, node.reduction = (_meta(a), _meta(b)), reduction
    return make(out, True, node)


# ----- in-place ops: the same op, its result written back, the tensor rebased (INP-11) -------------
LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_MESSAGE = "a view of a leaf Variable that requires grad is being used in an in-place operation."


def _check_inplace(a, leaf_message):
    """torch's refusals: inference tensors (MODE-7), requiring leaves and their views (INP-1, INP-2)."""
    if a._inference and not _state.inference:
        raise RuntimeError(INPLACE_INFERENCE_MESSAGE)
    if _state.enabled:
        if a._requires_grad and a.grad_fn is None:
            raise RuntimeError(leaf_message)
        base = a._base
        if base is not None and base._requires_grad and base.grad_fn is None:
            raise RuntimeError(VIEW_OF_LEAF_MESSAGE)


def _snapshot(a):
    """a's old value at a's place in the graph: what the in-place op's node reads and points to."""
    return make(a._array.copy(), a._requires_grad, a.grad_fn)


def _rebase(a, node):
    """After an in-place write: bump the version and make `node` a's grad_fn (INP-10, INP-11).

    For a view made by indexing a non-leaf, the base is rebased too: it becomes a CopySlices of the
    view's new value, and the view is re-read from it (INP-13).
    """
    a._bump_version()
    base = a._base
    if base is not None and a._view_key is not None:
        copy = CopySlices(base, make(a._array, True, node))
        copy.shape, copy.key, copy.value_meta = base._array.shape, a._view_key, _meta(a)
        base._set_grad_fn(copy)
        node = AsStridedBackward0(base)
        node.shape, node.key = base._array.shape, a._view_key
    a._set_grad_fn(node)


def _inplace(a, op, ufunc, other):
    """Apply op(a, other) in place: recorded like the out-of-place op when a gradient can flow."""
    _check_inplace(a, LEAF_MESSAGE)
    other = _as_operand(other)
    if _state.enabled and (a._requires_grad or _requires(other)):
        out = op(_snapshot(a), other)
        a._array[...] = out._array
        _rebase(a, out.grad_fn)
        return a
    try:
        ufunc(a._array, _value(other), out=a._array)
    except TypeError:
        got = dtypes.from_numpy(dtypes.result_type(a._array, _value(other))).torch_name
        raise RuntimeError(f"result type {got} can't be cast to the desired output type "
                           f"{a.dtype.torch_name}") from None
    a._bump_version()
    return a


def add_(a, other):
    return _inplace(a, add, np.add, other)


def sub_(a, other):
    return _inplace(a, sub, np.subtract, other)


def mul_(a, other):
    return _inplace(a, mul, np.multiply, other)


def div_(a, other):
    return _inplace(a, div, np.true_divide, other)


class FillBackward(Node):
    """zero_() and fill_(): the old value gets no gradient."""

    __slots__ = ()

    def backward(self, grad):
        return (grad * 0,)


class ZeroBackward0(FillBackward):
    __slots__ = ()


class FillBackward2(FillBackward):
    __slots__ = ()


def fill_(a, value):
    _check_inplace(a, LEAF_MESSAGE)
    node = None
    if _state.enabled and a._requires_grad:
        node = (ZeroBackward0 if value == 0 else FillBackward2)(a)
    a._array[...] = _value(value)
    if node is None:
        a._bump_version()
    else:
        _rebase(a, node)
    return a


class CopyBackwards(Node):
    __slots__ = ("src_meta",)

    def name(self):
        return "torch::autograd::CopyBackwards"

    def backward(self, grad):
        return (grad * 0 if self.needs_grad(0) else None,
                sum_to(grad, self.src_meta) if self.needs_grad(1) else None)


def copy_(a, src):
    """a.copy_(src): a takes src's values and, if src requires grad, its gradient path."""
    _check_inplace(a, LEAF_MESSAGE)
    src = _as_operand(src)
    node = None
    if _state.enabled and (a._requires_grad or _requires(src)):
        node = CopyBackwards(a, src)
        node.src_meta = _meta(src)
    a._array[...] = _value(src)
    if node is None:
        a._bump_version()
    else:
        _rebase(a, node)
    return a
