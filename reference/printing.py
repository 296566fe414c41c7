"""`repr(tensor)` in torch's format (GFN-8): `tensor([1., 2.], requires_grad=True)`,
`tensor(3., grad_fn=<SumBackward0>)`, 4 decimals or scientific notation like torch's printer."""
import numpy as np

from . import dtypes

_DEFAULT_DTYPES = (np.dtype(np.float32), np.dtype(np.int64), np.dtype(np.bool_))


def _float_formatter(values):
    finite = np.abs(values[np.isfinite(values)])
    nonzero = finite[finite != 0]
    if np.all(nonzero == np.ceil(nonzero)):
        if nonzero.size and nonzero.max() > 1e8:
            return "{:.4e}".format
        return lambda v: f"{v:.0f}." if np.isfinite(v) else f"{v}"
    if nonzero.size and (nonzero.max() / nonzero.min() > 1000 or nonzero.max() > 1e8 or nonzero.min() < 1e-4):
        return "{:.4e}".format
    return lambda v: f"{v:.4f}" if np.isfinite(v) else f"{v}"


def _formatter(array):
    if array.dtype.kind == "f":
        return _float_formatter(array.astype(np.float64).ravel())
    if array.dtype.kind == "b":
        return lambda v: "True" if v else "False"
    return str


def _body(array, fmt, width, indent):
    if array.ndim == 0:
        return fmt(array.item()).rjust(width)
    if array.ndim == 1:
        return "[" + ", ".join(fmt(v).rjust(width) for v in array.tolist()) + "]"
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(_body(row, fmt, width, indent + 1) for row in array) + "]"


def tensor_repr(t):
    array = t._array
    prefix = "tensor("
    suffixes = []
    if array.size == 0:
        body = "[]"
        if array.ndim != 1:
            suffixes.append(f"size={tuple(array.shape)}")
    else:
        fmt = _formatter(array)
        finite = array[np.isfinite(array)] if array.dtype.kind == "f" else array
        width = max((len(fmt(v)) for v in finite.ravel().tolist()), default=0)
        body = _body(array, fmt, width if array.ndim else 0, len(prefix))
    if array.dtype not in _DEFAULT_DTYPES:
        suffixes.append(f"dtype={dtypes.from_numpy(array.dtype)!r}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return prefix + body + "".join(", " + s for s in suffixes) + ")"
