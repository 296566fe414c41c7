"""tinygrad (https://github.com/tinygrad/tinygrad), pinned to 0.14.0, as a torch-like namespace.

tinygrad 0.14 has no per-tensor `requires_grad` flag (0.12 had one): `backward()` fills `.grad`
of every floating-point tensor of the graph that is still alive. The factories therefore take
torch's `requires_grad=` keyword and pass nothing on (like `retain_grad()`, it asks nothing
tinygrad can be asked): a tensor made with `requires_grad=False` is tinygrad's ordinary tensor,
receives a gradient, and the suite reports that. The attribute `requires_grad` and
`requires_grad_()` are absent (see docs/adapter-contract.md, "Engines without requires_grad
flags"); no flag is kept here.

`tensor(number)` is made as tinygrad's one-element tensor reshaped to shape `()`: tinygrad's own
`Tensor(number)` is a constant without a device, which backward() never gives a gradient and which
is read through the CPU device whatever `DEV` says; torch's `tensor(number)` is a 0-d tensor with
storage, which in tinygrad is what the reshape gives (a `Tensor` on the device, differentiated).

tinygrad's default CPU device compiles kernels with a `clang` binary (also for the device's own
start-up programs, so `CC=gcc` does not help); this adapter therefore selects tinygrad's
pure-Python device (`DEV=PYTHON`) unless the environment sets `DEV`, and turns tinygrad's on-disk
kernel cache (in the home folder) off unless `CACHEDB` or `CACHELEVEL` is set. Both are tinygrad's
own settings.

tinygrad's `Tensor` is wrapped thinly (its ops build plain `tinygrad.Tensor`s, so a subclass would
not survive an op); each method translates a name or a signature and calls tinygrad once:

- `sum/mean(dim=, keepdim=)` -> `axis=, keepdim=`; `exp/log/tanh/sigmoid/relu/sqrt/abs(t)` ->
  methods.
- `backward(gradient)` as is; tinygrad has no `retain_graph` (its graph is the lazy UOp graph and
  is never freed), so the flag is accepted and has no effect.
- `.grad` is tinygrad's gradient tensor, wrapped; `.grad.zero_()` is tinygrad's in-place
  `assign(zeros_like())`; `.grad = None` sets tinygrad's attribute.
- tinygrad refuses backward() on a non-scalar without a gradient with an AssertionError; that one
  refusal is re-raised as torch's RuntimeError (only the class is renamed; the text is tinygrad's).

tinygrad has no autograd graph nodes, so there is no `is_leaf` or `grad_fn`, and no per-tensor
flag (reading these names raises AttributeError saying why), and no grad mode: `no_grad()` raises
`NotSupportedByEngine` (deliberately not a RuntimeError) when entered. `retain_grad()` asks
nothing of tinygrad, which keeps the gradient of every floating-point tensor of the graph.
"""

from __future__ import annotations

import os
from importlib.metadata import version as _dist_version

import numpy as np
from tinygrad import Tensor as _TinyTensor
from tinygrad import dtypes
from tinygrad.helpers import CACHELEVEL as _CACHELEVEL
from tinygrad.helpers import DEV as _DEV

from ._operators import Operators
from ._operators import unwrap as _data

# tinygrad reads DEV and CACHELEVEL from the environment when it is first imported, which may be
# before this module is: set them through tinygrad's own variables unless the environment chose.
if "DEV" not in os.environ:
    _DEV.value = "PYTHON"
if "CACHEDB" not in os.environ and "CACHELEVEL" not in os.environ:
    _CACHELEVEL.value = 0

name = "tinygrad"
version = _dist_version("tinygrad")
capabilities = frozenset({"core", "float64"})

float32, float64, int64 = dtypes.float32, dtypes.float64, dtypes.int64

_NO_GRAPH = ("tinygrad records no autograd graph nodes and no per-tensor requires_grad flag "
             "(backward() differentiates every floating-point tensor of its lazy UOp graph), so "
             "tensors have no {}")


class NotSupportedByEngine(Exception):
    """The torch feature asked for has no counterpart in tinygrad."""



def _absent(attribute: str):
    def refuse(self, *value):
        raise AttributeError(_NO_GRAPH.format(attribute))
    return property(refuse, refuse)


class Tensor(Operators):
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
    requires_grad = _absent("requires_grad")
    requires_grad_ = _absent("requires_grad_")

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

    def retain_grad(self) -> None:
        """Nothing to ask: tinygrad keeps the gradient of every floating-point tensor."""

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

    def clone(self):
        return Tensor(self._t.clone())


def _shape(shape) -> tuple:
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape


def tensor(data, dtype=None, requires_grad=False):  # unused: see the module docstring
    data = _data(data)
    if isinstance(data, _TinyTensor):
        data = data.numpy()
    if np.ndim(data) == 0:  # tinygrad's Tensor(number) is a device-less constant: see the docstring
        one = np.reshape(data, (1,)) if isinstance(data, np.ndarray) else [data]
        return Tensor(_TinyTensor(one, dtype=dtype).reshape(()))
    return Tensor(_TinyTensor(data, dtype=dtype))


def zeros(*shape, dtype=None, requires_grad=False):  # unused: see the module docstring
    return Tensor(_TinyTensor.zeros(*_shape(shape), dtype=dtype))


def ones(*shape, dtype=None, requires_grad=False):  # unused: see the module docstring
    return Tensor(_TinyTensor.ones(*_shape(shape), dtype=dtype))


def zeros_like(t):
    return Tensor(_data(t).zeros_like())


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


def sqrt(t):
    return Tensor(_data(t).sqrt())


def abs(t):  # torch's name
    return Tensor(_data(t).abs())


class no_grad:  # torch's name
    """tinygrad 0.14 has no grad mode; entering raises."""

    def __enter__(self):
        raise NotSupportedByEngine("tinygrad has no no_grad / grad mode")

    def __exit__(self, *exc_info):
        return False


def to_numpy(t) -> np.ndarray:
    return np.array(_data(t).numpy() if isinstance(t, (Tensor, _TinyTensor)) else t, copy=True)
