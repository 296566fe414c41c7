"""The Tensor: a NumPy array plus what autograd needs to know about it.

A tensor is a leaf when `grad_fn` is None (LEAF-1, LEAF-2); a leaf that requires grad receives
`.grad` through its `AccumulateGrad` node (GFN-4), which the tensor references only weakly so that a
graph dies with its last user. Tensors that share storage (views, `detach()`) share one version
counter, bumped by every in-place op (INP-10, DET-3). Arithmetic lives in `ops.py`; the methods here
only forward to it, so that `x * y`, `x.mul(y)` and `reference.mul(x, y)` are the same code.
"""
import warnings
import weakref

import numpy as np

from . import dtypes, grad_mode, graph

_state = grad_mode.state

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
    "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
    "for more information."
)
_DETACH_HINT = (
    " If you want to use a computed variable in a subgraph that doesn't require differentiation use "
    "var_no_grad = var.detach()."
)
INPLACE_INFERENCE_MESSAGE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get "
    "a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
)


class _VersionCounter:
    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


class Tensor:
    """A NumPy-backed tensor with torch's autograd attributes."""

    __slots__ = ("_array", "_requires_grad", "grad_fn", "_grad", "_counter", "_base", "_view_key",
                 "_inference", "_retains_grad", "_hooks", "_accumulator", "__weakref__")
    __array_ufunc__ = None  # NumPy must defer to our reflected operators (ndarray * Tensor)

    def __init__(self, data=(), dtype=None, requires_grad=False):
        from .creation import as_array
        init(self, as_array(data, dtype))
        if requires_grad:
            self.requires_grad = True

    # ----- plain attributes -------------------------------------------------------------------
    @property
    def data(self):
        """A no-grad alias with its own version counter: changes through it go unnoticed (DET-4)."""
        return make(self._array)

    @data.setter
    def data(self, value):
        self._array = value._array

    @property
    def shape(self):
        return self._array.shape

    def size(self, dim=None):
        return self._array.shape if dim is None else self._array.shape[dim]

    @property
    def dtype(self):
        return dtypes.from_numpy(self._array.dtype)

    @property
    def ndim(self):
        return self._array.ndim

    def dim(self):
        return self._array.ndim

    def numel(self):
        return self._array.size

    @property
    def device(self):
        return "cpu"

    @property
    def is_leaf(self):
        return self.grad_fn is None

    def is_floating_point(self):
        return self._array.dtype.kind == "f"

    def is_inference(self):
        return self._inference

    @property
    def _version(self):
        return self._counter.value if self._counter is not None else 0

    def _shared_counter(self):
        """The version counter, created on first need, to share with a view or alias."""
        if self._counter is None:
            self._counter = _VersionCounter()
        return self._counter

    def _bump_version(self):
        self._shared_counter().value += 1

    # ----- requires_grad, grad, retain_grad ---------------------------------------------------
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        if self.grad_fn is not None:  # REQ-6: the setter refuses both values on a non-leaf
            raise RuntimeError("you can only change requires_grad flags of leaf variables."
                               + ("" if flag else _DETACH_HINT))
        if flag and self._array.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self._set_leaf_requires_grad(bool(flag))

    def requires_grad_(self, requires_grad=True):
        """Flip a leaf's flag in place and return it (REQ-5); on a non-leaf True is a no-op (REQ-6)."""
        if self.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError("you can only change requires_grad flags of leaf variables." + _DETACH_HINT)
            return self
        if requires_grad and self._array.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._set_leaf_requires_grad(bool(requires_grad))
        return self

    def _set_leaf_requires_grad(self, flag):
        if flag and self._inference and not _state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = flag

    @property
    def grad(self):
        """The accumulated gradient; reading it on a non-leaf that keeps none warns (LEAF-6, LEAF-7)."""
        if self._grad is None and self.grad_fn is not None and not self._retains_grad:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        """Assigning `.grad` checks shape and dtype (ACC-12); None resets it (ACC-8)."""
        if value is not None:
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
                    f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size")
            if value.dtype != self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value.dtype.c_name}' to a tensor with "
                    f"grad_dtype '{self.dtype.torch_name}'. The gradient must match the tensor's grad_dtype "
                    "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a "
                    "specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the "
                    "dtypes of a tensor and its gradient may break downstream systems that assume they match.")
        self._grad = value

    @property
    def retains_grad(self):
        return self._retains_grad

    def retain_grad(self):
        """Keep this non-leaf's gradient in `.grad` (LEAF-8); a no-op on leaves (LEAF-9)."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is not None and not self._retains_grad:
            self._retains_grad = True
            self.grad_fn._retained = weakref.ref(self)

    def _grad_accumulator(self):
        """This leaf's AccumulateGrad node, shared by every graph that uses the leaf (GFN-4)."""
        node = self._accumulator() if self._accumulator is not None else None
        if node is None:
            node = graph.AccumulateGrad(self)
            self._accumulator = weakref.ref(node)
        return node

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

    # ----- backward, hooks, detach ------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf) into every leaf's `.grad`; see autograd.backward."""
        from .autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook):
        """Call `hook(grad)` when this tensor's gradient is computed; it may return a replacement (HOOK-1)."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = graph.HookDict()
            hooks = self._hooks
        else:
            if self.grad_fn._pre_hooks is None:
                self.grad_fn._pre_hooks = graph.HookDict()
            hooks = self.grad_fn._pre_hooks
        handle = graph.RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def detach(self):
        """A no-grad leaf sharing storage and version counter (DET-1, DET-3)."""
        alias = make(self._array)
        alias._counter = self._shared_counter()
        return alias

    def detach_(self):
        """Make this tensor a no-grad leaf in place (DET-5, DET-8); views refuse (DET-6)."""
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
                "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
                "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
                "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self.grad_fn = None
        self._requires_grad = False
        return self

    # ----- leaving autograd -------------------------------------------------------------------
    def numpy(self):
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._array

    def __array__(self, dtype=None, copy=None):
        """np.asarray(t), like torch: refused for tensors that require grad (MISC-7)."""
        array = self.numpy()
        return array if dtype is None else array.astype(dtype, copy=False)

    def item(self):
        if self._array.size != 1:
            raise RuntimeError(f"a Tensor with {self._array.size} elements cannot be converted to Scalar")
        return self._array.item()

    def tolist(self):
        return self._array.tolist()

    def __float__(self):
        if self._requires_grad:
            _warn_scalar_conversion()
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __bool__(self):
        if self._array.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._array.item())

    def __index__(self):
        if self._array.dtype.kind not in "iub" or self._array.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._array.item())

    def __len__(self):
        if self._array.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._array.shape[0]

    def __iter__(self):
        if self._array.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._array.shape[0]))

    def __hash__(self):
        return id(self)

    def __deepcopy__(self, memo):
        """Leaves only, like torch (MISC-9)."""
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

    def __repr__(self):
        from .printing import tensor_repr
        return tensor_repr(self)

    # ----- operators: see ops.py --------------------------------------------------------------
    def __add__(self, other): return ops.add(self, other)
    def __radd__(self, other): return ops.add(other, self)
    def __sub__(self, other): return ops.sub(self, other)
    def __rsub__(self, other): return ops.rsub(self, other)
    def __mul__(self, other): return ops.mul(self, other)
    def __rmul__(self, other): return ops.mul(other, self)
    def __truediv__(self, other): return ops.div(self, other)
    def __rtruediv__(self, other): return ops.rdiv(self, other)
    def __pow__(self, other): return ops.pow(self, other)
    def __rpow__(self, other): return ops.rpow(self, other)
    def __matmul__(self, other): return ops.matmul(self, other)
    def __rmatmul__(self, other): return ops.matmul(other, self)
    def __neg__(self): return ops.neg(self)
    def __pos__(self): return self
    def __getitem__(self, key): return ops.index(self, key)
    def __setitem__(self, key, value): ops.index_put(self, key, value)
    def __iadd__(self, other): return ops.add_(self, other)
    def __isub__(self, other): return ops.sub_(self, other)
    def __imul__(self, other): return ops.mul_(self, other)
    def __itruediv__(self, other): return ops.div_(self, other)
    def __eq__(self, other): return ops.compare(np.equal, self, other)
    def __ne__(self, other): return ops.compare(np.not_equal, self, other)
    def __lt__(self, other): return ops.compare(np.less, self, other)
    def __le__(self, other): return ops.compare(np.less_equal, self, other)
    def __gt__(self, other): return ops.compare(np.greater, self, other)
    def __ge__(self, other): return ops.compare(np.greater_equal, self, other)

    def add(self, other, alpha=1): return ops.add(self, other if alpha == 1 else other * alpha)
    def sub(self, other, alpha=1): return ops.sub(self, other if alpha == 1 else other * alpha)
    def mul(self, other): return ops.mul(self, other)
    def div(self, other): return ops.div(self, other)
    def neg(self): return ops.neg(self)
    def pow(self, exponent): return ops.pow(self, exponent)
    def square(self): return ops.pow(self, 2)
    def matmul(self, other): return ops.matmul(self, other)
    def mm(self, other): return ops.matmul(self, other)
    def exp(self): return ops.exp(self)
    def log(self): return ops.log(self)
    def tanh(self): return ops.tanh(self)
    def sigmoid(self): return ops.sigmoid(self)
    def relu(self): return ops.relu(self)
    def sqrt(self): return ops.sqrt(self)
    def abs(self): return ops.abs(self)
    def sgn(self): return ops.sgn(self)
    def sum(self, dim=None, keepdim=False): return ops.sum(self, dim, keepdim)
    def mean(self, dim=None, keepdim=False): return ops.mean(self, dim, keepdim)
    def reshape(self, *shape): return ops.reshape(self, shape)
    def view(self, *shape): return ops.reshape(self, shape)
    def flatten(self): return ops.reshape(self, (-1,))
    def unsqueeze(self, dim): return ops.unsqueeze(self, dim)
    def expand(self, *sizes): return ops.expand(self, sizes)
    def transpose(self, dim0, dim1): return ops.transpose(self, dim0, dim1)
    def t(self): return ops.t(self)
    @property
    def T(self): return ops.permute_reversed(self)
    def clone(self): return ops.clone(self)
    def contiguous(self): return self
    def cpu(self): return self
    def to(self, dtype): return ops.to(self, dtype)
    def float(self): return ops.to(self, dtypes.float32)
    def double(self): return ops.to(self, dtypes.float64)
    def long(self): return ops.to(self, dtypes.int64)
    def bool(self): return ops.to(self, dtypes.bool)

    def add_(self, other, alpha=1): return ops.add_(self, other if alpha == 1 else other * alpha)
    def sub_(self, other, alpha=1): return ops.sub_(self, other if alpha == 1 else other * alpha)
    def mul_(self, other): return ops.mul_(self, other)
    def div_(self, other): return ops.div_(self, other)
    def zero_(self): return ops.fill_(self, 0)
    def fill_(self, value): return ops.fill_(self, value)
    def copy_(self, src): return ops.copy_(self, src)


def init(t, array, requires_grad=False, grad_fn=None):
    """Set every field of a new tensor; `make` is the fast path that ops use."""
    t._array = array
    t._requires_grad = requires_grad
    t.grad_fn = grad_fn
    t._grad = None
    t._counter = None
    t._base = None
    t._view_key = None
    t._inference = _state.inference
    t._retains_grad = False
    t._hooks = None
    t._accumulator = None
    return t


def make(array, requires_grad=False, grad_fn=None):
    """A new Tensor around a NumPy array (no copy)."""
    return init(Tensor.__new__(Tensor), array, requires_grad, grad_fn)


def _warn_scalar_conversion():
    """float() of a requiring tensor warns once per process (MISC-7, MISC-14)."""
    global _warned_scalar
    if not _warned_scalar:
        _warned_scalar = True
        warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                      "behavior.\nConsider using tensor.detach() first.", UserWarning, stacklevel=3)


_warned_scalar = False

from . import ops  # noqa: E402 - ops needs Tensor defined first
