"""A tensor's `.grad` and what decides it: assigning it, `grad_dtype`, and `retain_grad()`.

A mixin of `Tensor` (tensor.py). A leaf that requires grad receives `.grad` from backward
(graph.accumulate_into, in its grad_dtype); a non-leaf only after `retain_grad()`, and reading a
non-leaf's `.grad` that it does not keep warns.
"""
import warnings
import weakref

OWN_DTYPE = object()  # a leaf's grad_dtype before it is set: the tensor's own dtype (BC-6)

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
    "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
    "for more information."
)


class GradAttribute:
    """The `.grad` methods of `Tensor`; reads `_requires_grad`, `grad_fn`, `dtype` and `shape`, keeps
    the gradient in `_grad`, the grad_dtype in `_grad_dtype`."""

    __slots__ = ()

    @property
    def grad(self):
        """The accumulated gradient, None until a backward reaches the tensor (ACC-11); reading it on
        a non-leaf that keeps none warns (LEAF-6, LEAF-7)."""
        if self._grad is None and self.grad_fn is not None and not self._retains_grad:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        """Assigning `.grad` checks type, shape, dtype and device and refuses the tensor itself
        (ACC-12); None resets it (ACC-8). The tensor is kept as it is, strides too (LAYOUT-2)."""
        if value is not None and not isinstance(value, GradAttribute):
            raise TypeError("assigned grad expected to be a Tensor or None but got grad of type "
                            f"{type(value).__name__}")
        if value is self:
            raise RuntimeError("can't assign Variable as its own grad")
        if value is not None:
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
                    f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size")
            if value.device != self.device:
                raise RuntimeError(
                    f"attempting to assign a gradient with device type '{value.device}' to a tensor with "
                    f"device type '{self.device}'. Please ensure that the gradient and the tensor are on the "
                    "same device")
            allowed = self.dtype if self._grad_dtype is OWN_DTYPE else self._grad_dtype
            if allowed is not None and value.dtype != allowed:  # BC-6: None allows any dtype
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value.dtype.c_name}' to a tensor with "
                    f"grad_dtype '{allowed.torch_name}'. The gradient must match the tensor's grad_dtype "
                    "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a "
                    "specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the "
                    "dtypes of a tensor and its gradient may break downstream systems that assume they match.")
        self._grad = value

    @property
    def grad_dtype(self):
        """The dtype of this leaf's .grad: its own dtype until set to another (backward then casts
        its gradients to it) or to None (an assigned .grad may have any dtype) (BC-6)."""
        self._leaf_only("grad_dtype can only be accessed on leaf tensors.")
        return self.dtype if self._grad_dtype is OWN_DTYPE else self._grad_dtype

    @grad_dtype.setter
    def grad_dtype(self, dtype):
        self._leaf_only("grad_dtype can only be set on leaf tensors.")
        self._grad_dtype = dtype

    @property
    def _cast_grad_to(self):
        """The NumPy dtype accumulation casts incoming gradients to: None for the tensor's own."""
        dtype = self._grad_dtype
        return None if dtype is OWN_DTYPE or dtype is None else dtype.numpy

    def _leaf_only(self, message):
        if self.grad_fn is not None:
            raise RuntimeError(message)

    @property
    def retains_grad(self):
        return self._retains_grad  # True only on a non-leaf after retain_grad() (LEAF-15)

    def retain_grad(self):
        """Keep this non-leaf's gradient in `.grad` (LEAF-8); a no-op on leaves (LEAF-9)."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is not None and not self._retains_grad:
            self._retains_grad = True
            self.grad_fn._retained = weakref.ref(self)
