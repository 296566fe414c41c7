"""PaddlePaddle (https://github.com/PaddlePaddle/Paddle) 3.3.1, CPU wheel, as a torch-like namespace.

paddle 3.3 has many of torch's names (`requires_grad(_)`, `transpose(d0, d1)`, `zeros(*shape)`), bound
as they are. Its `Tensor` is still wrapped thinly, because some names mean something else in paddle
and must not change on paddle's own class: `shape` is a `paddle.Size` (not a tuple), `numel()` is a
0-d Tensor, every leaf has an accumulation node as `grad_fn`. Each method translates and calls paddle once:

- factories' `requires_grad=` -> `stop_gradient=` (its inverse); `shape` -> a tuple; `numel()` -> int;
  `retain_grad()` -> `retain_grads()`; `sum/mean(dim=)` -> `axis=`; `_version` -> `inplace_version`.
- `grad_fn` is None for a tensor paddle itself considers a leaf (`is_leaf`), else paddle's node.
- `backward(gradient, retain_graph)` -> `backward(grad_tensor=, retain_graph=)`; `autograd.grad` ->
  `paddle.grad` (a list there, a tuple in torch). `register_hook(fn)`: `fn` sees adapter tensors.
- `.grad` is paddle's gradient, wrapped; `.grad.zero_()` is the owner's `clear_grad()`, paddle's way
  to zero it in place (paddle refuses `zero_()` on the gradient, which it marks as requiring grad).
- `add_`/`mul_` of a Python number pass it as a 0-d tensor of the same dtype (paddle's take tensors).

Refusals renamed (the class only, the message is paddle's; each matched by paddle's text): a second
backward through a freed graph (SystemError), `paddle.grad` with an input outside the graph and an
in-place op on a leaf that requires grad (ValueError), a gradient of the wrong shape
(AssertionError) -> RuntimeError; `paddle.grad(out, [])` (AssertionError) -> ValueError.

Not declared: `backward(inputs=, create_graph=)` (paddle's backward has neither: NotSupportedByEngine,
deliberately not a RuntimeError), `inference_mode`, `legacy`, `grad_fn_names`/`messages` (paddle's
own names and texts), `graph` (paddle's `next_functions` lists nodes, not (node, index) pairs, and
its accumulation node does not record its leaf), `functional` (paddle's `jacobian(ys, xs)` takes
outputs, not a function), and `nn`/`optim` (paddle's Layer registers only paddle's own tensors).
"""

from __future__ import annotations

import warnings
from importlib.metadata import version as _dist_version

with warnings.catch_warnings():  # paddle warns at import that no ccache binary is installed
    warnings.simplefilter("ignore", UserWarning)
    import paddle

from ._operators import Operators
from ._operators import unwrap as _data

name = "paddle"
version = _dist_version("paddlepaddle")
capabilities = frozenset({"core", "float64", "grad_mode", "autograd_grad", "higher_order", "hooks",
                          "inplace"})

float32, float64, int64 = paddle.float32, paddle.float64, paddle.int64

_FREED = "without setting retain_graph=True"
_UNUSED = "does not appear in the backward graph"
_LEAF_INPLACE = "that doesn't stop gradient can't use inplace strategy"
_GRADIENT_SHAPE = "Tensor shape not match, Tensor of grad_tensor"


class NotSupportedByEngine(Exception):
    """The torch feature asked for has no counterpart in paddle's API."""



def _renamed(error: Exception):
    """A paddle refusal for one of the table's cases under torch's class, else the error itself."""
    text = str(error)
    if isinstance(error, SystemError) and _FREED in text:
        return RuntimeError(text)
    if isinstance(error, ValueError) and (_UNUSED in text or _LEAF_INPLACE in text):
        return RuntimeError(text)
    if isinstance(error, AssertionError) and _GRADIENT_SHAPE in text:
        return RuntimeError(text)
    return error


def _inplace(method, *args):
    """Call one of paddle's in-place methods, with the leaf refusal under torch's class."""
    try:
        return method(*args)
    except ValueError as error:
        raise _renamed(error) from error


class Tensor(Operators):
    """A paddle Tensor under torch's names; `_t` is the paddle tensor itself."""

    __slots__ = ("_t", "_owner", "__weakref__")

    def __init__(self, t, owner=None):
        self._t = t
        self._owner = owner  # for a gradient: the paddle tensor whose .grad it is

    # -- attributes --------------------------------------------------------------------------
    shape = property(lambda self: tuple(self._t.shape))
    dtype = property(lambda self: self._t.dtype)
    ndim = property(lambda self: self._t.ndim)
    is_leaf = property(lambda self: self._t.is_leaf)
    grad_fn = property(lambda self: None if self._t.is_leaf else self._t.grad_fn)

    @property
    def requires_grad(self) -> bool:
        return self._t.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag) -> None:
        self._t.requires_grad = flag

    @property
    def grad(self):
        grad = self._t.grad
        return None if grad is None else Tensor(grad, owner=self._t)

    @grad.setter
    def grad(self, value) -> None:
        self._t.grad = _data(value)

    # -- autograd ----------------------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        if create_graph:
            raise NotSupportedByEngine("paddle's Tensor.backward has no create_graph (paddle.grad has)")
        if inputs is not None:
            raise NotSupportedByEngine("paddle's Tensor.backward has no inputs= argument")
        try:
            self._t.backward(grad_tensor=_data(gradient), retain_graph=bool(retain_graph))
        except (SystemError, ValueError, AssertionError) as error:
            raise _renamed(error) from error

    def requires_grad_(self, requires_grad=True):
        self._t.requires_grad_(requires_grad)
        return self

    def retain_grad(self) -> None:
        self._t.retain_grads()

    def detach(self):
        return Tensor(self._t.detach())

    def register_hook(self, fn):
        return self._t.register_hook(lambda grad: _data(fn(Tensor(grad))))

    # -- values ------------------------------------------------------------------------------
    def item(self):
        return self._t.item()

    def numel(self) -> int:
        return int(self._t.numel())

    # -- in place ------------------------------------------------------------------------------
    _version = property(lambda self: self._t.inplace_version)

    def zero_(self):
        if self._owner is not None:
            self._owner.clear_grad()
        else:
            _inplace(self._t.zero_)
        return self

    def add_(self, other):
        _inplace(self._t.add_, self._operand(other))
        return self

    def mul_(self, other):
        _inplace(self._t.mul_, self._operand(other))
        return self

    def copy_(self, src):
        _inplace(self._t.copy_, _data(src))
        return self

    def __setitem__(self, index, value):
        _inplace(self._t.__setitem__, index, _data(value))

    def detach_(self):
        self._t.detach_()
        return self

    def _operand(self, other):
        """paddle's add_/mul_ take only a Tensor; torch's also take a Python number."""
        return _data(other) if isinstance(other, Tensor) else paddle.to_tensor(other, self._t.dtype)

    def __repr__(self) -> str:
        return f"paddle_adapter.{self._t!r}"

    # -- the op set --------------------------------------------------------------------------
    def sum(self, dim=None, keepdim=False):
        return Tensor(self._t.sum(axis=dim, keepdim=keepdim))

    def mean(self, dim=None, keepdim=False):
        return Tensor(self._t.mean(axis=dim, keepdim=keepdim))

    def reshape(self, *shape):
        return Tensor(self._t.reshape(list(_shape(shape))))

    def transpose(self, dim0, dim1):
        return Tensor(self._t.transpose(dim0, dim1))

    def __getitem__(self, index):
        return Tensor(self._t[index])

    def clone(self):
        return Tensor(self._t.clone())


def _shape(shape) -> tuple:
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape


def tensor(data, dtype=None, requires_grad=False):
    return Tensor(paddle.to_tensor(_data(data), dtype=dtype, stop_gradient=not requires_grad))


def _factory(make, shape, dtype, requires_grad):
    t = make(list(_shape(shape)), dtype=dtype or paddle.float32)
    t.stop_gradient = not requires_grad
    return Tensor(t)


def zeros(*shape, dtype=None, requires_grad=False):
    return _factory(paddle.zeros, shape, dtype, requires_grad)


def ones(*shape, dtype=None, requires_grad=False):
    return _factory(paddle.ones, shape, dtype, requires_grad)


def zeros_like(t):
    return Tensor(paddle.zeros_like(_data(t)))


def _unary(function):
    def op(t):
        return Tensor(function(_data(t)))
    op.__name__ = function.__name__
    return op


exp, log, tanh = _unary(paddle.exp), _unary(paddle.log), _unary(paddle.tanh)
sqrt, abs = _unary(paddle.sqrt), _unary(paddle.abs)  # torch's name
sigmoid, relu = _unary(paddle.nn.functional.sigmoid), _unary(paddle.nn.functional.relu)


no_grad, enable_grad = paddle.no_grad, paddle.enable_grad
set_grad_enabled, is_grad_enabled = paddle.set_grad_enabled, paddle.is_grad_enabled


class autograd:  # stands for the `torch.autograd` module
    """`torch.autograd.grad` -> `paddle.grad`."""

    @staticmethod
    def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
             allow_unused=False):
        def unwrap(x):
            return [_data(t) for t in x] if isinstance(x, (list, tuple)) else _data(x)
        try:
            grads = paddle.grad(unwrap(outputs), unwrap(inputs), unwrap(grad_outputs),
                                retain_graph=retain_graph, create_graph=create_graph,
                                allow_unused=allow_unused)
        except (SystemError, ValueError) as error:
            raise _renamed(error) from error
        except AssertionError as error:
            if "inputs cannot be empty" in str(error):
                raise ValueError(str(error)) from error
            raise
        return tuple(None if g is None else Tensor(g) for g in grads)


def to_numpy(t):
    return (t._t if isinstance(t, Tensor) else t).numpy()
