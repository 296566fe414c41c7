"""The Tensor: a NumPy array plus what autograd needs to know about it.

A tensor is a leaf when `grad_fn` is None (LEAF-1, LEAF-2); a leaf that requires grad receives
`.grad` through its `AccumulateGrad` node (GFN-4, made by graph.py), which the tensor references only
weakly (`_accumulator`) so that a graph dies with its last user. Tensors that share storage (views,
`detach()`) share one version counter, bumped by every in-place op (INP-10, DET-3).

This module imports neither the graph nor any op: the operators and op methods (`x * y`, `x.mul(y)`, which
are the same code as `reference.mul(x, y)`) and `backward()` are bound onto the class by
`methods.py`, once the op set exists.
"""
import warnings
import weakref

import numpy as np

from . import dtypes, grad_mode
from .conversions import Conversions
from .grad_attribute import OWN_DTYPE, GradAttribute
from .printing import tensor_repr
from .tensor_hooks import TensorHooks

_state = grad_mode.state

_DETACH_HINT = (
    " If you want to use a computed variable in a subgraph that doesn't require differentiation use "
    "var_no_grad = var.detach()."
)


class _VersionCounter:
    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


class Tensor(Conversions, GradAttribute, TensorHooks):
    """A NumPy-backed tensor with torch's autograd attributes."""

    __slots__ = ("_array", "_requires_grad", "_grad_fn", "_output_nr", "_grad", "_counter", "_base",
                 "_view", "_inference", "_retains_grad", "_hooks", "_post_accumulate_hooks", "_accumulator",
                 "__weakref__", "_tangent",  # (dual level, tangent) in forward-mode AD: see dual.py
                 "_grad_dtype",  # a leaf's grad_dtype once set (a dtype or None), else OWN_DTYPE
                 "_fw_base")  # a view's base in forward mode: _base, except that make_dual starts a new one
    __array_ufunc__ = None  # NumPy must defer to our reflected operators (ndarray * Tensor)

    def __init__(self, data=(), dtype=None, requires_grad=False):
        init(self, as_array(data, dtype))
        if requires_grad:
            self.requires_grad = True

    # ----- plain attributes -------------------------------------------------------------------
    @property
    def data(self):
        """A no-grad alias of the same storage, so x.grad.data.zero_() zeros x.grad (ACC-7), with its
        own version counter: changes through it go unnoticed, as in torch."""
        return make(self._array)

    @data.setter
    def data(self, value):
        self._array = value._array

    @property
    def grad_fn(self):
        """The node that computed this tensor; None for a leaf (LEAF-1). A view whose storage was
        changed in place since its grad_fn was recorded reads its values from its base's current
        graph: its grad_fn is made anew from the base (VIEW-9, VIEW-10, ops/views.py)."""
        view = self._view
        if view is not None and view.version != self._counter.value:
            view.follow_base(self)
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node):
        self._grad_fn = node

    @property
    def output_nr(self):
        """Which output of its grad_fn this tensor is (0 but for a custom Function's others)."""
        return self._output_nr

    @property
    def is_leaf(self):
        """Exactly when grad_fn is None (LEAF-1, LEAF-2)."""
        return self.grad_fn is None

    def is_inference(self):
        return self._inference

    def _is_view(self):
        """Whether this tensor shares the storage of another, its `_base` (VIEW-2)."""
        return self._base is not None

    @property
    def _version(self):
        if self._inference:  # inference tensors count nothing (MODE-13)
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._counter.value if self._counter is not None else 0

    def _shared_counter(self):
        """The version counter, created on first need, to share with a view or alias."""
        if self._counter is None:
            self._counter = _VersionCounter()
        return self._counter

    def _bump_version(self):
        self._shared_counter().value += 1

    # ----- requires_grad (grad, grad_dtype, retain_grad: grad_attribute.py) --------------------
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        if self.grad_fn is not None:  # REQ-6, MSG-5: the setter refuses both values on a non-leaf
            raise RuntimeError("you can only change requires_grad flags of leaf variables."
                               + ("" if flag else _DETACH_HINT))
        # Only True checks the dtype: bool and integer tensors refuse it (REQ-2), not False (REQ-3).
        if flag and self._array.dtype.kind not in "fc":  # CPLX-1: complex ones may
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self._set_leaf_requires_grad(bool(flag))

    def requires_grad_(self, requires_grad=True):
        """Flip a leaf's flag in place and return it (REQ-5); on a non-leaf True is a no-op and
        False raises (REQ-6, MSG-5). Only True checks the dtype (REQ-2); False is fine on any (REQ-3)."""
        if self.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError("you can only change requires_grad flags of leaf variables." + _DETACH_HINT)
            return self
        if requires_grad and self._array.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._set_leaf_requires_grad(bool(requires_grad))
        return self

    def _set_leaf_requires_grad(self, flag):
        if flag and self._inference and not _state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = flag

    def _set_grad_fn(self, node):
        """Make this tensor the output of `node` after an in-place op (INP-11, INP-16)."""
        if self._retains_grad:
            self.grad_fn._retained = None
            node._retained = weakref.ref(self)
        self.grad_fn = node
        self._requires_grad = True

    @property
    def volatile(self):
        """Removed in torch 0.4: always False, with a warning (RETAIN-12)."""
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
        return False

    @volatile.setter
    def volatile(self, value):
        warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                      UserWarning, stacklevel=2)

    # ----- detach (hooks: tensor_hooks.py) -----------------------------------------------------
    def detach(self):
        """A no-grad leaf sharing storage and version counter (DET-1, DET-3): no gradient flows
        through it (DET-2), and `.requires_grad_()` makes it a new leaf that gradients reach and do
        not pass (REQ-7). It has no tangent either (FWD-8)."""
        alias = make(self._array)
        alias._counter = self._shared_counter()
        return alias

    def detach_(self):
        """Make this tensor a no-grad leaf in place (DET-5, DET-8); views refuse (DET-6). The nodes
        already recorded keep their edges to its old grad_fn: the graph through it stays (DET-7).
        Its storage does not change, so its views keep their grad_fn and requires_grad (VIEW-16)."""
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
                "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
                "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
                "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self.grad_fn = None
        self._requires_grad = False
        self._tangent = None  # and a no-tangent one in forward mode (FWD-8)
        return self

    # ----- copying ---------------------------------------------------------------------------
    def __deepcopy__(self, memo):
        """Leaves only, like torch."""
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at "
                "the moment.  If you were attempting to deepcopy a module, this may be because of a "
                "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")
        copy = type(self).__new__(type(self))
        init(copy, self._array.copy(), self._requires_grad)
        if self._grad is not None:
            copy._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = copy
        return copy

    __repr__ = tensor_repr


def init(t, array, requires_grad=False, grad_fn=None):
    """Set every field of a new tensor; `make` is the fast path that ops use."""
    t._array = array
    t._requires_grad = requires_grad
    t._grad_fn = grad_fn
    t._output_nr = 0
    t._grad = None
    t._counter = None
    t._base = t._fw_base = None
    t._view = None  # a view's View (ops/views.py): where its elements are in its base
    t._inference = _state.inference
    t._retains_grad = False
    t._hooks = t._post_accumulate_hooks = None
    t._accumulator = None
    t._tangent = None
    t._grad_dtype = OWN_DTYPE
    return t


def make(array, requires_grad=False, grad_fn=None):
    """A new Tensor around a NumPy array (no copy)."""
    return init(Tensor.__new__(Tensor), array, requires_grad, grad_fn)


def as_array(data, dtype=None):
    """A NumPy array of one of our dtypes from nested lists, numbers, arrays or tensors."""
    if isinstance(data, Tensor):
        data = data._array
    elif isinstance(data, (list, tuple)) and _contains_tensor(data):
        data = [as_array(item) for item in data]
    array = np.array(data, dtype=None if dtype is None else dtype.numpy)
    if dtype is None:
        if array.dtype.kind in "fc" and not isinstance(data, np.ndarray):
            # Python floats become float32 (torch's default dtype), Python complex numbers complex64
            array = array.astype(np.float32 if array.dtype.kind == "f" else np.complex64)
        elif array.dtype not in dtypes._BY_NUMPY:
            array = array.astype(dtypes.from_numpy(array.dtype).numpy)
    return array


def _contains_tensor(items):
    return any(isinstance(x, Tensor) or isinstance(x, (list, tuple)) and _contains_tensor(x) for x in items)
