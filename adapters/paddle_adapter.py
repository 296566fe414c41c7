"""PaddlePaddle (https://github.com/PaddlePaddle/Paddle), pinned to 3.3.1 (CPU wheel), as a torch-like
namespace.

paddle 3.3 already has many of torch's names (`requires_grad`, `requires_grad_`, `transpose(d0, d1)`,
`sum(dim=, keepdim=)`, `zeros(*shape)`); the adapter binds those as they are. Its `Tensor` is
wrapped thinly all the same, because a few names that paddle has mean something else there and
must not be changed on paddle's own class: `shape` is a `paddle.Size` (not a tuple), `numel()`
returns a 0-d Tensor, and every leaf has an accumulation node as `grad_fn`. What the wrapper
translates:

- `requires_grad=` in factories -> `stop_gradient=` (its inverse).
- `shape` -> `tuple(shape)`; `numel()` -> `int(numel())`; `retain_grad()` -> `retain_grads()`.
- `grad_fn` is None for a tensor that paddle itself considers a leaf (`is_leaf`), paddle's node
  otherwise (docs/adapter-contract.md, "A name that exists with another convention").
- `backward(gradient, retain_graph)` -> `backward(grad_tensor=, retain_graph=)`;
  `autograd.grad` -> `paddle.grad` (a list in paddle, a tuple in torch).
- `.grad` is paddle's gradient tensor, wrapped; `.grad.zero_()` is the owner's `clear_grad()`,
  paddle's way to zero a gradient in place (paddle refuses `zero_()` on the gradient tensor itself,
  which it marks as a leaf that requires grad); `.grad = None` is paddle's own assignment.
- `register_hook(fn)` as is; `fn` sees and returns adapter tensors.

Refusals renamed (only the class; the message is paddle's), each matched by paddle's text so that
nothing else is renamed: a second backward through a freed graph (paddle: SystemError) and
`paddle.grad` with an input outside the graph without `allow_unused` (paddle: ValueError) are
re-raised as torch's RuntimeError; `paddle.grad(out, [])` (paddle: AssertionError) as ValueError.

Not declared: `backward(inputs=)`, `backward(create_graph=)` (paddle's backward has neither; asking
raises `NotSupportedByEngine`, deliberately not a RuntimeError), `inference_mode` (paddle has none),
the legacy names, `grad_fn_names`/`messages` (paddle's node names and texts are its own), and
`nn`/`optim`/`inplace`/`graph`/`functional`, which paddle has but this wrapper does not translate.
"""

from __future__ import annotations

import warnings
from importlib.metadata import version as _dist_version

with warnings.catch_warnings():  # paddle warns at import that no ccache binary is installed
    warnings.simplefilter("ignore", UserWarning)
    import paddle

name = "paddle"
version = _dist_version("paddlepaddle")
capabilities = frozenset({"core", "float64", "grad_mode", "autograd_grad", "higher_order", "hooks"})

float32, float64, int64 = paddle.float32, paddle.float64, paddle.int64

_FREED = "without setting retain_graph=True"
_UNUSED = "does not appear in the backward graph"


class NotSupportedByEngine(Exception):
    """The torch feature asked for has no counterpart in paddle's API."""


def _data(x):
    """The paddle-level value of an adapter tensor, or a Python value as it is."""
    return x._t if isinstance(x, Tensor) else x


def _wrap(t):
    return None if t is None else Tensor(t)


def _renamed(error: Exception):
    """A paddle refusal for one of the table's cases under torch's class, else the error itself."""
    text = str(error)
    if isinstance(error, SystemError) and _FREED in text:
        return RuntimeError(text)
    if isinstance(error, ValueError) and _UNUSED in text:
        return RuntimeError(text)
    return error


class Tensor:
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
        except (SystemError, ValueError) as error:
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

    def tolist(self):
        return self._t.tolist()

    def numpy(self):
        return self._t.numpy()

    def zero_(self):
        if self._owner is None:
            raise NotSupportedByEngine("in-place ops are not translated (no `inplace` capability)")
        self._owner.clear_grad()
        return self

    def __len__(self) -> int:
        return len(self._t)

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

    def __neg__(self):
        return Tensor(-self._t)

    def __add__(self, other):
        return Tensor(self._t + _data(other))

    def __radd__(self, other):
        return Tensor(_data(other) + self._t)

    def __sub__(self, other):
        return Tensor(self._t - _data(other))

    def __rsub__(self, other):
        return Tensor(_data(other) - self._t)

    def __mul__(self, other):
        return Tensor(self._t * _data(other))

    def __rmul__(self, other):
        return Tensor(_data(other) * self._t)

    def __truediv__(self, other):
        return Tensor(self._t / _data(other))

    def __rtruediv__(self, other):
        return Tensor(_data(other) / self._t)

    def __pow__(self, exponent):
        return Tensor(self._t ** _data(exponent))

    def __matmul__(self, other):
        return Tensor(self._t @ _data(other))

    def __rmatmul__(self, other):
        return Tensor(_data(other) @ self._t)


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


def exp(t):
    return Tensor(paddle.exp(_data(t)))


def log(t):
    return Tensor(paddle.log(_data(t)))


def tanh(t):
    return Tensor(paddle.tanh(_data(t)))


def sigmoid(t):
    return Tensor(paddle.nn.functional.sigmoid(_data(t)))


def relu(t):
    return Tensor(paddle.nn.functional.relu(_data(t)))


no_grad, enable_grad = paddle.no_grad, paddle.enable_grad
set_grad_enabled, is_grad_enabled = paddle.set_grad_enabled, paddle.is_grad_enabled


class autograd:  # noqa: N801 - stands for the `torch.autograd` module
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
        return tuple(_wrap(g) for g in grads)


def to_numpy(t):
    return (t._t if isinstance(t, Tensor) else t).numpy()
