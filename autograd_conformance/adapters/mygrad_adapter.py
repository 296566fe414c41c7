"""mygrad (https://github.com/rsokl/MyGrad), pinned to 2.5.0, as a torch-like namespace.

mygrad's tensors follow NumPy, not torch, so its `Tensor` is wrapped thinly: every method here
translates a name or a signature and then calls mygrad once. What the wrapper translates:

- `requires_grad=` <-> mygrad's `constant=` (its inverse); `requires_grad` reads `not constant`.
- `grad_fn` is mygrad's `creator` (the Operation that produced the tensor, None for tensors made
  by the user); `is_leaf` is `creator is None`. Both are mygrad's own state, renamed.
- `sum/mean(dim=, keepdim=)` -> `axis=, keepdims=`; `transpose(d0, d1)` -> `swapaxes(d0, d1)`
  (mygrad's `transpose(*axes)` is NumPy's permutation); `numel()` -> `size`;
  `sigmoid`/`relu` -> `mygrad.nnet.activations`; `abs` -> `absolute`;
  `no_grad` -> `mygrad.no_autodiff`.
- `clone()` -> `mygrad.positive` (NumPy's unary plus: a copy that mygrad records in the graph, with
  the identity as its derivative, which is what torch's clone is; mygrad's `Tensor.copy()` is
  detached from the graph).
- `backward(gradient)` -> `backward(grad)`. mygrad has no `retain_graph`: it always clears the graph
  after backward, so the flag is accepted and has no effect (the suite reports what follows).
- `.grad` is a NumPy array in mygrad; it is returned as a view with torch's `numel()` and `zero_()`
  (which zeroes mygrad's own gradient array in place). `.grad = None` is `null_grad()`.
- `tensor(...)` with Python floats and no dtype gives float32, torch's default (mygrad's is float64).
- mygrad refuses `constant=False` on integer data with ValueError; that one refusal is re-raised as
  torch's RuntimeError (only the class is renamed; the message is mygrad's).

Not translated, because mygrad has no such concept (never emulated): retain_graph, create_graph,
backward(inputs=...), grad modes other than no_autodiff, hooks, in-place/version counters,
nn/optim. Requests for them raise `NotSupportedByEngine` (deliberately not a RuntimeError, so that
a test expecting torch's RuntimeError cannot pass on it).
"""

from __future__ import annotations

from importlib.metadata import version as _dist_version

import mygrad as mg
import numpy as np
from mygrad.nnet.activations import relu as _relu
from mygrad.nnet.activations import sigmoid as _sigmoid

from ._operators import Operators
from ._operators import unwrap as _data

name = "mygrad"
version = _dist_version("mygrad")
capabilities = frozenset({"core", "float64"})

float32, float64, int64 = np.float32, np.float64, np.int64


class NotSupportedByEngine(Exception):
    """The torch feature asked for has no counterpart in mygrad."""



class Grad(np.ndarray):
    """mygrad's gradient array (a view of it, sharing memory) with torch's numel() and zero_()."""

    def numel(self) -> int:
        return int(self.size)

    def zero_(self):
        self[...] = 0
        return self


class Tensor(Operators):
    """A mygrad Tensor under torch's names; `_t` is the mygrad tensor itself."""

    __slots__ = ("_t", "__weakref__")

    def __init__(self, t: mg.Tensor):
        self._t = t

    # -- attributes --------------------------------------------------------------------------
    shape = property(lambda self: self._t.shape)
    dtype = property(lambda self: self._t.dtype)
    ndim = property(lambda self: self._t.ndim)
    grad_fn = property(lambda self: self._t.creator)
    is_leaf = property(lambda self: self._t.creator is None)

    @property
    def requires_grad(self) -> bool:
        return not self._t.constant

    @requires_grad.setter
    def requires_grad(self, flag) -> None:
        self.requires_grad_(flag)

    @property
    def grad(self):
        grad = self._t.grad
        return None if grad is None else np.asarray(grad).view(Grad)

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            raise NotSupportedByEngine("mygrad's .grad can only be cleared (null_grad), not set")
        self._t.null_grad()

    # -- autograd ----------------------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        if create_graph:
            raise NotSupportedByEngine("mygrad has no create_graph: gradients are NumPy arrays")
        if inputs is not None:
            raise NotSupportedByEngine("mygrad's backward has no inputs= argument")
        self._t.backward(None if gradient is None else np.asarray(_data(gradient)))

    def requires_grad_(self, requires_grad=True):
        """mygrad fixes `constant` when a tensor is made; for a leaf, the translation is mygrad's
        own idiom, a new leaf over the same memory with the other flag (mygrad validates it).
        Asking for the flag a tensor already has changes nothing, in any engine."""
        if bool(requires_grad) == self.requires_grad:
            return self
        if self._t.creator is not None:
            raise NotSupportedByEngine("mygrad cannot change `constant` of a tensor made by an op")
        self._t = _make(self._t, constant=not requires_grad, copy=False)
        return self

    def retain_grad(self) -> None:
        """Nothing to ask: mygrad keeps the gradient of every tensor in the graph."""

    def detach(self):
        return Tensor(mg.Tensor(self._t.data, constant=True, copy=False))

    # -- values ------------------------------------------------------------------------------
    def item(self):
        return self._t.item()

    def numel(self) -> int:
        return int(self._t.size)

    def tolist(self):
        return self._t.data.tolist()

    def numpy(self) -> np.ndarray:
        return np.array(self._t.data)

    def zero_(self):
        raise NotSupportedByEngine("mygrad tensors have no in-place zero_ (only .grad has)")

    def __repr__(self) -> str:
        return f"mygrad_adapter.{self._t!r}"

    # -- the op set --------------------------------------------------------------------------
    def sum(self, dim=None, keepdim=False):
        return Tensor(self._t.sum(axis=dim, keepdims=keepdim))

    def mean(self, dim=None, keepdim=False):
        return Tensor(self._t.mean(axis=dim, keepdims=keepdim))

    def reshape(self, *shape):
        return Tensor(self._t.reshape(*shape))

    def transpose(self, dim0, dim1):
        return Tensor(self._t.swapaxes(dim0, dim1))

    def __getitem__(self, index):
        return Tensor(self._t[index])

    def clone(self):
        return Tensor(mg.positive(self._t))


def _make(data, constant, dtype=None, copy=True) -> mg.Tensor:
    try:
        return mg.Tensor(data, dtype=dtype, constant=constant, copy=copy)
    except ValueError as error:
        if "Integer-valued tensors must be treated as constants" in str(error):
            raise RuntimeError(str(error)) from error
        raise


def _shape(shape) -> tuple:
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape


def tensor(data, dtype=None, requires_grad=False):
    data = _data(data)
    if dtype is None and not isinstance(data, (np.ndarray, mg.Tensor)):
        inferred = np.asarray(data).dtype
        dtype = np.float32 if inferred == np.float64 else inferred
    return Tensor(_make(data, constant=not requires_grad, dtype=dtype))


def zeros(*shape, dtype=None, requires_grad=False):
    return Tensor(mg.zeros(_shape(shape), dtype=dtype or np.float32, constant=not requires_grad))


def ones(*shape, dtype=None, requires_grad=False):
    return Tensor(mg.ones(_shape(shape), dtype=dtype or np.float32, constant=not requires_grad))


def zeros_like(t):
    return Tensor(mg.zeros_like(_data(t), constant=True))


def exp(t):
    return Tensor(mg.exp(_data(t)))


def log(t):
    return Tensor(mg.log(_data(t)))


def tanh(t):
    return Tensor(mg.tanh(_data(t)))


def sqrt(t):
    return Tensor(mg.sqrt(_data(t)))


def abs(t):  # torch's name
    return Tensor(mg.absolute(_data(t)))


def sigmoid(t):
    return Tensor(_sigmoid(_data(t)))


def relu(t):
    return Tensor(_relu(_data(t)))


def no_grad():
    """mygrad's `no_autodiff`: a context manager and decorator, as torch's no_grad() is."""
    return mg.no_autodiff


def to_numpy(t) -> np.ndarray:
    return np.array(t._t.data if isinstance(t, Tensor) else t, copy=True)
