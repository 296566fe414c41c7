"""The op set: each op's forward and, right after it, its backward node, one module per family.

An op computes its result with NumPy. When `graph.record` says the op is recorded (grad mode is on
and an input requires grad), it also creates its node (named like torch's, GFN-1), saves what the
backward formula needs and nothing else (what is saved decides which graphs can be backpropagated
twice, RETAIN-3), and returns a non-leaf. Otherwise it returns a plain leaf. A node's backward is
the op's exact derivative, so float64 programs agree with central differences (VAL-1).

- `common.py`      operands, results, and the helpers formulas share
- `arithmetic.py`  + - * / ** and negation
- `elementwise.py` exp, log, tanh, sigmoid, relu, sqrt, abs, sgn, comparisons
- `reductions.py`  sum, mean, mse_loss
- `views.py`       reshape, unsqueeze, expand, transpose
- `indexing.py`    a[key]
- `linalg.py`      matmul, addmm, linear
- `copies.py`      clone, to
- `inplace.py`     add_ ... div_, fill_, copy_, a[key] = value

`methods.py` binds these as Tensor methods and operators.
"""
from .arithmetic import add, div, mul, neg, pow, rdiv, rpow, rsub, sub
from .copies import clone, to
from .elementwise import abs, compare, exp, log, relu, sgn, sigmoid, sqrt, tanh
from .indexing import index
from .inplace import add_, copy_, div_, fill_, index_put, mul_, sub_
from .linalg import linear, matmul
from .reductions import mean, mse_loss, sum
from .views import expand, permute_reversed, reshape, t, transpose, unsqueeze

__all__ = [
    "abs", "add", "add_", "clone", "compare", "copy_", "div", "div_", "exp", "expand", "fill_", "index",
    "index_put", "linear", "log", "matmul", "mean", "mse_loss", "mul", "mul_", "neg", "permute_reversed", "pow",
    "rdiv", "relu", "reshape", "rpow", "rsub", "sgn", "sigmoid", "sqrt", "sub", "sub_", "sum", "t", "tanh", "to",
    "transpose", "unsqueeze",
]
