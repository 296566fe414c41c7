"""What every op family shares: operands in, results out, and the gradient helpers.

Backward formulas get the incoming gradient as a NumPy array (or NumPy scalar: NumPy's result for
0-dim operands), or as a Tensor under create_graph (graph.py explains why). They use operators and
Tensor methods, which both kinds mostly share, and the helpers of the "two spellings" section below
where NumPy and the Tensor spell a step differently. No family imports another for its formulas.
"""
import numpy as np

from .. import dtypes
from ..graph import Node
from ..tensor import Tensor, make

# torch computes inf and nan silently (GRAD-7); NumPy would warn on every overflow or 0/0.
np.seterr(all="ignore")

_NUMBERS = (int, float)


# ----- operands and results -----------------------------------------------------------------------
def value(x):
    """The NumPy value of an operand: a Tensor's array, or the Python number itself."""
    return x._array if isinstance(x, Tensor) else x


def requires(x):
    return isinstance(x, Tensor) and x._requires_grad


def meta(x):
    """What a gradient must be reduced to for input x: its (shape, dtype) (BC-1, BC-3)."""
    return (x._array.shape, x._array.dtype) if isinstance(x, Tensor) else None


def as_operand(x):
    """Operands are Tensors, Python numbers or (internally) arrays; lists become arrays."""
    if isinstance(x, (Tensor, int, float, complex, np.ndarray)):
        return x
    if isinstance(x, (list, tuple, np.generic)):
        return np.asarray(x)
    raise TypeError(f"unsupported operand type: '{type(x).__name__}'")


def output(array, node, *saved):
    """The output of an op: a non-leaf of `node`, which keeps `saved` for its backward (LEAF-3), or
    a plain leaf when the op was not recorded (node None, LEAF-2)."""
    if node is None:
        return make(array)
    if saved:
        node.save(*saved)
    return make(array, True, node)


class ResultNode(Node):
    """The node of an op whose backward needs only the op's output (`_saved_result`)."""

    __slots__ = ()
    saved_names = ("result",)
    saves_result = True


def output_saved(array, node):
    """`output`, for an op whose ResultNode saves that output (exp, tanh, sigmoid, relu; INP-6)."""
    if node is None:
        return make(array)
    out = make(array, True, node)
    node.save(out.detach())
    return out


def unary(x):
    """NumPy reductions return scalars for 0-dim results (ufuncs called with out=... do not);
    tensors always hold arrays."""
    return x if type(x) is np.ndarray else np.asarray(x)


def _operand_error(x, y, error):
    """torch's RuntimeError for NumPy's ValueError: shapes that do not broadcast, or another refusal
    (integers to negative integer powers)."""
    sa, sb = np.shape(x), np.shape(y)
    for i in range(1, min(len(sa), len(sb)) + 1):
        if sa[-i] != sb[-i] and sa[-i] != 1 and sb[-i] != 1:
            return RuntimeError(f"The size of tensor a ({sa[-i]}) must match the size of tensor b ({sb[-i]}) "
                                f"at non-singleton dimension {max(len(sa), len(sb)) - i}")
    return RuntimeError(str(error))


def elementwise(ufunc, a, b):
    """ufunc(a, b) as an array with torch's dtype, and the two operands (lists made arrays).

    NumPy and torch promote differently (BC-3); the common cases, where they agree, are checked
    first: same-dtype tensors, or a floating-point tensor with a Python number. Either way float32
    operands compute in float32 (VAL-2).
    """
    a_tensor, b_tensor = isinstance(a, Tensor), isinstance(b, Tensor)
    x = a._array if a_tensor else as_operand(a)
    y = b._array if b_tensor else as_operand(b)
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


def dims_of(a, dim):
    """dim (int or sequence) as a sorted tuple of non-negative dims, with torch's errors, dim by dim
    in order: out of range, or a dim named twice (0 and -1 of a 0-dim tensor are both dim 0)."""
    ndim = a._array.ndim
    low, high = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    normalised = []
    for d in dims:
        if not low <= d <= high:
            raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], but got {d})")
        d = d % ndim if ndim else 0
        if d in normalised:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        normalised.append(d)
    return tuple(sorted(normalised))


# ----- the two spellings: helpers for formulas that run on arrays or on Tensors -------------------
def sum_to(grad, meta):
    """Sum a broadcast gradient back to an input's shape and cast it to its dtype (BC-1, BC-3); a
    0-dim input gets the 0-dim sum of all the contributions (BC-2). As torch's sum_to: one sum
    keeping the summed dims, then a view only where the input had fewer dims, so that under
    create_graph the gradient of a (3, 1) input broadcast to (3, 4) is SumBackward1 alone, of a
    (4,) input broadcast to (3, 4) a ViewBackward0 of it, of a 0-dim input SumBackward0 (BC-7)."""
    shape, dtype = meta
    if grad.shape != shape:
        lead = grad.ndim - len(shape)
        if lead < 0:  # the input had extra leading 1s (assigning a [1, 3] value into a [3] slot)
            return sum_to(grad, (shape[-lead:], dtype)).reshape(shape)
        if not shape:  # a 0-dim input: the sum of everything (SumBackward0)
            return cast(grad.sum() if isinstance(grad, Tensor) else np.asarray(grad.sum()), dtype)
        dims = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(shape) if n == 1 and grad.shape[lead + i] != 1)
        if dims:
            grad = (grad.sum(dims, keepdim=True) if isinstance(grad, Tensor)
                    else grad.sum(axis=dims, keepdims=True))
        if grad.shape != shape:  # the leading dims, summed to 1s
            grad = grad.reshape(shape)
    return cast(grad, dtype)


def cast(grad, dtype):
    """The gradient in another NumPy dtype (ToCopyBackward0); itself if it has that dtype. A complex
    gradient that reaches a real input keeps its real part: the imaginary part is the derivative
    along a direction the real input cannot move in (CPLX-5, CPLX-6)."""
    if (grad._array if isinstance(grad, Tensor) else grad).dtype.kind == "c" and dtype.kind != "c":
        grad = grad.real
    if isinstance(grad, Tensor):
        return grad if grad._array.dtype == dtype else grad.to(dtypes.from_numpy(dtype))
    return grad if grad.dtype == dtype else grad.astype(dtype)


def conj(x):
    """The complex conjugate of a saved operand or derivative, for the backward of a holomorphic
    op: torch's gradients are conjugate Wirtinger derivatives, so the gradient of f(a) is
    grad * conj(f'(a)) (CPLX-2, CPLX-3). Real values (and Python numbers) pass unchanged, in their
    own type, so that real programs compute exactly as before."""
    if isinstance(x, Tensor):
        return x.conj() if x._array.dtype.kind == "c" else x
    if isinstance(x, complex):
        return x.conjugate()
    return np.conj(x) if np.iscomplexobj(x) else x


def expand_to(grad, shape):
    """The gradient broadcast to shape, without copying (SumBackward, MeanBackward): of an array
    already of that shape a new view, writable as torch's is, so that a leaf may keep it (ACC-14)."""
    if isinstance(grad, Tensor):
        return grad.expand(shape)
    return grad.view() if grad.shape == tuple(shape) else np.broadcast_to(grad, shape)


def scatter_add(grad, shape, key):
    """Zeros of `shape` with `grad` added where `key` (NumPy indices) read it from: an element
    read twice gets both. Under create_graph the sum stays differentiable: grad times a
    constant 0/1 matrix whose row i picks the element that result element i was read from."""
    if not isinstance(grad, Tensor):
        full = np.zeros(shape, grad.dtype)
        np.add.at(full, key, grad)
        return full
    numel = int(np.prod(shape, dtype=int))
    sources = np.arange(numel).reshape(shape)[key]
    picks = np.zeros((sources.size, numel), grad._array.dtype)
    picks[np.arange(sources.size), sources.ravel()] = 1
    return (grad.reshape(sources.size) @ make(picks)).reshape(shape)


def swap_dims(grad, dim0, dim1):
    return grad.transpose(dim0, dim1) if isinstance(grad, Tensor) else np.swapaxes(grad, dim0, dim1)


def sign(x):
    return x.sgn() if isinstance(x, Tensor) else np.sign(x)


def log(x):
    return x.log() if isinstance(x, Tensor) else np.log(x)


def zeros_for(grad, shape):
    """A zero gradient of the given shape, of the same kind and dtype as grad."""
    if isinstance(grad, Tensor):
        return make(np.zeros(shape, grad._array.dtype))
    return np.zeros(shape, grad.dtype)
