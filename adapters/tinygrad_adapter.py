"""tinygrad (https://github.com/tinygrad/tinygrad), pinned to 0.12.0, as a torch-like namespace.

tinygrad 0.12 is the last release with `requires_grad` (0.14 removed it). Its default CPU device
compiles kernels with a `clang` binary; this adapter therefore selects tinygrad's pure-Python
device (`DEV=PYTHON`) unless the environment sets `DEV`, and turns tinygrad's on-disk kernel cache
(in the home folder) off unless `CACHEDB` or `CACHELEVEL` is set. Both are tinygrad's own settings.

tinygrad's `Tensor` is wrapped thinly (its ops build plain `tinygrad.Tensor`s, so a subclass would
not survive an op); each method translates a name or a signature and calls tinygrad once:

- `requires_grad` reads tinygrad's flag as a bool: tinygrad's third state `None` ("not set") is
  treated by its backward as False, so it reads False. Factories pass `requires_grad=False`
  explicitly where torch's default is False (tinygrad's default is None).
- `sum/mean(dim=, keepdim=)` -> `axis=, keepdim=`; `exp/log/tanh/sigmoid/relu(t)` -> methods.
- `backward(gradient)` as is; tinygrad has no `retain_graph` (its graph is the lazy UOp graph and
  is never freed), so the flag is accepted and has no effect.
- `.grad` is tinygrad's gradient tensor, wrapped; `.grad.zero_()` is tinygrad's in-place
  `assign(zeros_like())`; `.grad = None` sets tinygrad's attribute.
- tinygrad refuses backward() on a non-scalar without a gradient with an AssertionError; that one
  refusal is re-raised as torch's RuntimeError (only the class is renamed; the text is tinygrad's).

tinygrad has no autograd graph nodes, so there is no `is_leaf` or `grad_fn`
(reading them raises AttributeError), and no grad mode: `no_grad()` raises `NotSupportedByEngine`
(deliberately not a RuntimeError) when entered. `retain_grad()` asks nothing of tinygrad, which
keeps the gradient of every tensor that requires grad.
"""

from __future__ import annotations

import os
from importlib.metadata import version as _dist_version

os.environ.setdefault("DEV", "PYTHON")
if "CACHEDB" not in os.environ:
    os.environ.setdefault("CACHELEVEL", "0")

import numpy as np  # noqa: E402
from tinygrad import Tensor as _TinyTensor, dtypes  # noqa: E402

name = "tinygrad"
version = _dist_version("tinygrad")
capabilities = frozenset({"core", "float64"})

float32, float64, int64 = dtypes.float32, dtypes.float64, dtypes.int64

_NO_GRAPH = ("tinygrad records no autograd graph nodes (gradients are derived from its lazy UOp "
             "graph), so tensors have no {}")


class NotSupportedByEngine(Exception):
    """The torch feature asked for has no counterpart in tinygrad."""


def _data(x):
    return x._t if isinstance(x, Tensor) else x


def _absent(attribute: str):
    def getter(self):
        raise AttributeError(_NO_GRAPH.format(attribute))
    return property(getter)


class Tensor:
    """A tinygrad Tensor under torch's names; `_t` is the tinygrad tensor itself."""

    __slots__ = ("_t", "__weakref__")

    def __init__(self, t: _TinyTensor):
        self._t = t

    # -- attributes --------------------------------------------------------------------------
    shape = property(lambda self: self._t.shape)
    dtype = property(lambda self: self._t.dtype)
    ndim = property(lambda self: self._t.ndim)
    is_leaf = _absent("is_leaf")
    grad_fn = _absent("grad_fn")

    @property
    def requires_grad(self):
        return self._t.requires_grad is True

    @requires_grad.setter
    def requires_grad(self, flag) -> None:
        self._t.requires_grad_(flag)

    @property
    def grad(self):
        grad = self._t.grad
        return None if grad is None else Tensor(grad)

    @grad.setter
    def grad(self, value) -> None:
        self._t.grad = None if value is None else _data(value)

    # -- autograd ----------------------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        if create_graph:
            raise NotSupportedByEngine("tinygrad's backward has no create_graph")
        if inputs is not None:
            raise NotSupportedByEngine("tinygrad's backward has no inputs= argument")
        if gradient is not None and not isinstance(gradient, Tensor):
            gradient = tensor(gradient, dtype=self.dtype)
        try:
            self._t.backward(None if gradient is None else gradient._t)
        except AssertionError as error:
            if "backward must be called on a scalar tensor" in str(error):
                raise RuntimeError(str(error)) from error
            raise

    def requires_grad_(self, requires_grad=True):
        self._t.requires_grad_(requires_grad)
        return self

    def retain_grad(self) -> None:
        """Nothing to ask: tinygrad keeps the gradient of every tensor that requires grad."""

    def detach(self):
        return Tensor(self._t.detach())

    def zero_(self):
        self._t.assign(self._t.zeros_like())
        return self

    # -- values ------------------------------------------------------------------------------
    def item(self):
        return self._t.item()

    def numel(self) -> int:
        return int(self._t.numel())

    def tolist(self):
        return self._t.tolist()

    def numpy(self) -> np.ndarray:
        return self._t.numpy()

    def __len__(self) -> int:
        return len(self._t)

    def __repr__(self) -> str:
        return f"tinygrad_adapter.Tensor({self._t.numpy().tolist()!r}, dtype={self._t.dtype})"

    # -- the op set --------------------------------------------------------------------------
    def sum(self, dim=None, keepdim=False):
        return Tensor(self._t.sum(axis=dim, keepdim=keepdim))

    def mean(self, dim=None, keepdim=False):
        return Tensor(self._t.mean(axis=dim, keepdim=keepdim))

    def reshape(self, *shape):
        return Tensor(self._t.reshape(*shape))

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
    data = _data(data)
    if isinstance(data, _TinyTensor):
        data = data.numpy()
    return Tensor(_TinyTensor(data, dtype=dtype, requires_grad=requires_grad))


def zeros(*shape, dtype=None, requires_grad=False):
    return Tensor(_TinyTensor.zeros(*_shape(shape), dtype=dtype, requires_grad=requires_grad))


def ones(*shape, dtype=None, requires_grad=False):
    return Tensor(_TinyTensor.ones(*_shape(shape), dtype=dtype, requires_grad=requires_grad))


def zeros_like(t):
    return Tensor(_data(t).zeros_like(requires_grad=False))


def exp(t):
    return Tensor(_data(t).exp())


def log(t):
    return Tensor(_data(t).log())


def tanh(t):
    return Tensor(_data(t).tanh())


def sigmoid(t):
    return Tensor(_data(t).sigmoid())


def relu(t):
    return Tensor(_data(t).relu())


class no_grad:  # noqa: N801 - torch's name
    """tinygrad 0.12 has no grad mode (its `Tensor.no_grad` flag was removed); entering raises."""

    def __enter__(self):
        raise NotSupportedByEngine("tinygrad 0.12 has no no_grad / grad mode")

    def __exit__(self, *exc_info):
        return False


def to_numpy(t) -> np.ndarray:
    return np.array(_data(t).numpy() if isinstance(t, (Tensor, _TinyTensor)) else t, copy=True)
