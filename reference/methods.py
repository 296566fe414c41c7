"""The Tensor method table: every operator and method that is an op, and `backward()`, bound here
in one place, after the op set exists, so that `tensor.py` imports no op.

`x * y`, `x.mul(y)` and `reference.mul(x, y)` are the same function. The package's `__init__`
imports this module; nothing else needs to.
"""
import numpy as np

from . import dtypes, ops
from .autograd import backward as _backward
from .tensor import Tensor


def _reflected(op):
    """`number <op> tensor`: the same op with the operands in their written order."""
    def reflected(self, other):
        return op(other, self)
    return reflected


def _comparison(ufunc):
    def compare(self, other):
        return ops.compare(ufunc, self, other)
    return compare


def _scaled(op):
    """`x.add(y, alpha=2)`: the op applied to alpha * y."""
    def scaled(self, other, alpha=1):
        return op(self, other if alpha == 1 else other * alpha)
    return scaled


def _converter(dtype):
    def convert(self):
        return ops.to(self, dtype)
    return convert


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(self)/d(leaf) into every leaf's `.grad` and return None (MISC-6); see
    autograd.backward. `gradient` is the v of v^T J, as grad_tensors is for autograd.backward and
    grad_outputs for autograd.grad (JAC-15); the second positional argument is retain_graph, as in
    torch's signature (RETAIN-11). There is no `retain_variables`: the removed name is a
    TypeError, raised before anything runs (RETAIN-10)."""
    _backward(self, gradient, retain_graph, create_graph, inputs=inputs)


backward.__qualname__ = "Tensor.backward"  # a wrong keyword's TypeError names it like torch's


def _reshape(self, *shape):
    return ops.reshape(self, shape)


def _view(self, *shape):
    return ops.view(self, shape)


def _expand(self, *sizes):
    return ops.expand(self, sizes)


def _setitem(self, key, value):
    ops.index_put(self, key, value)


def _itself(self):
    return self


_METHODS = {
    "__add__": ops.add, "__radd__": _reflected(ops.add), "__sub__": ops.sub, "__rsub__": ops.rsub,
    "__mul__": ops.mul, "__rmul__": _reflected(ops.mul), "__truediv__": ops.div, "__rtruediv__": ops.rdiv,
    "__pow__": ops.pow, "__rpow__": ops.rpow, "__matmul__": ops.matmul, "__rmatmul__": _reflected(ops.matmul),
    "__neg__": ops.neg, "__pos__": _itself, "__getitem__": ops.index, "__setitem__": _setitem,
    "__iadd__": ops.add_, "__isub__": ops.sub_, "__imul__": ops.mul_, "__itruediv__": ops.div_,
    "__eq__": _comparison(np.equal), "__ne__": _comparison(np.not_equal), "__lt__": _comparison(np.less),
    "__le__": _comparison(np.less_equal), "__gt__": _comparison(np.greater), "__ge__": _comparison(np.greater_equal),
    "add": _scaled(ops.add), "sub": _scaled(ops.sub), "mul": ops.mul, "div": ops.div, "neg": ops.neg,
    "pow": ops.pow, "square": lambda self: ops.pow(self, 2), "matmul": ops.matmul, "mm": ops.matmul,
    "exp": ops.exp, "log": ops.log, "tanh": ops.tanh, "sigmoid": ops.sigmoid, "relu": ops.relu,
    "sqrt": ops.sqrt, "abs": ops.abs, "sgn": ops.sgn, "sum": ops.sum, "mean": ops.mean,
    "argmax": ops.argmax, "amax": ops.amax, "amin": ops.amin, "max": ops.max, "min": ops.min,
    "median": ops.median,
    "reshape": _reshape, "view": _view, "flatten": ops.flatten,
    "unsqueeze": ops.unsqueeze, "squeeze": ops.squeeze, "select": ops.select, "narrow": ops.narrow,
    "split": ops.split, "chunk": ops.chunk, "unbind": ops.unbind, "expand": _expand,
    "transpose": ops.transpose, "t": ops.t,
    "T": property(ops.permute_reversed), "clone": ops.clone, "contiguous": ops.contiguous, "cpu": _itself,
    "to": ops.to, "float": _converter(dtypes.float32), "double": _converter(dtypes.float64),
    "long": _converter(dtypes.int64), "bool": _converter(dtypes.bool),
    "add_": _scaled(ops.add_), "sub_": _scaled(ops.sub_), "mul_": ops.mul_, "div_": ops.div_,
    "zero_": lambda self: ops.fill_(self, 0), "fill_": ops.fill_, "copy_": ops.copy_,
    "real": property(ops.real), "imag": property(ops.imag), "conj": ops.conj,
    "backward": backward,
}

for _name, _method in _METHODS.items():
    setattr(Tensor, _name, _method)
