"""The op set: each op's forward and, right after it, its backward node, one module per family.

An op computes its result with NumPy. When `graph.record` says the op is recorded (grad mode is on
and an input requires grad), it also creates its node (named like torch's, GFN-1), saves what the
backward formula needs and nothing else (what is saved decides which graphs can be backpropagated
twice, RETAIN-3), and returns a non-leaf. Otherwise it returns a plain leaf. A node's backward is
the op's exact derivative, so float64 programs agree with central differences (VAL-1) and, as each
op computes in torch's dtype (VAL-2), with torch running the same program (VAL-3).

- `common.py`      operands, results, and the helpers formulas share
- `arithmetic.py`  + - * / ** and negation
- `elementwise.py` exp, log, tanh, sigmoid, relu, sqrt, abs, sgn, comparisons
- `reductions.py`  sum, mean, mse_loss, argmax
- `extrema.py`     max, min, amax, amin, median, with torch's tie rules
- `views.py`       reshape/view, unsqueeze, squeeze, expand, transpose, t
- `indexing.py`    a[key], select, narrow, split, chunk, unbind
- `linalg.py`      matmul, addmm, linear
- `copies.py`      clone, to
- `complex_numbers.py` torch.complex, .real, .imag, .conj(): where real and complex gradients meet
- `inplace.py`     add_ ... div_, fill_, copy_, a[key] = value

`methods.py` binds these as Tensor methods and operators.
"""
from .arithmetic import add, div, mul, neg, pow, rdiv, rpow, rsub, sub
from .complex_numbers import complex, conj, imag, real
from .copies import clone, contiguous, to
from .elementwise import abs, compare, exp, log, relu, sgn, sigmoid, sqrt, tanh
from .extrema import amax, amin, max, median, min
from .indexing import chunk, index, narrow, select, split, unbind
from .inplace import add_, copy_, div_, fill_, index_put, mul_, sub_
from .linalg import linear, matmul
from .reductions import argmax, mean, mse_loss, sum
from .views import expand, flatten, permute_reversed, reshape, squeeze, t, transpose, unsqueeze, view

__all__ = [
    "abs", "add", "add_", "amax", "amin", "argmax", "chunk", "clone", "compare", "complex", "conj",
    "contiguous", "copy_", "div", "div_", "exp", "expand", "fill_", "flatten", "imag", "index",
    "index_put", "linear", "log", "matmul", "max", "mean", "median", "min", "mse_loss", "mul", "mul_",
    "narrow", "neg", "permute_reversed", "pow", "rdiv", "real", "relu", "reshape", "rpow", "rsub",
    "select", "sgn", "sigmoid", "split", "sqrt", "squeeze", "sub", "sub_",
    "sum", "t", "tanh", "to", "transpose", "unbind", "unsqueeze", "view",
]
