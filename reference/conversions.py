"""A tensor as an array: its shape and dtype, and how it leaves autograd, as a NumPy array, a
Python number or list, an index, an iterator.

A mixin of `Tensor` (tensor.py), kept apart so that the tensor module reads as the autograd
attributes it is about. What requires grad does not silently become a plain value: `numpy()` and
`np.asarray(t)` refuse it, `float(t)` warns (MISC-7).
"""
import warnings

from . import dtypes, layout
from .devices import device_of


class Conversions:
    """The array attributes and Python protocols of `Tensor`; reads only `_array` and
    `_requires_grad`."""

    __slots__ = ()

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

    def stride(self, dim=None):
        """The strides in elements, those of the NumPy array (layout.py)."""
        steps = layout.strides(self._array)
        return steps if dim is None else steps[dim]

    def is_contiguous(self):
        """Whether the elements are in row-major order (the strides of size-1 dims do not matter)."""
        return self._array.flags.c_contiguous

    @property
    def device(self):
        """The CPU's, or the meta device's for a tensor without values (devices.py)."""
        return device_of(self._array)

    def is_floating_point(self):
        return self._array.dtype.kind == "f"

    def is_complex(self):
        return self._array.dtype.kind == "c"

    def numpy(self):
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._array

    def __array__(self, dtype=None, copy=None):
        """np.asarray(t), like torch: refused for tensors that require grad (MISC-7)."""
        array = self.numpy()
        return array if dtype is None else array.astype(dtype, copy=False)

    def item(self):
        """The value as a Python number; the tensor keeps its history, so a branch or loop on it
        is differentiated as it ran (SEQ-2)."""
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


def _warn_scalar_conversion():
    """float() of a requiring tensor warns once per process (MISC-7, MISC-14)."""
    global _warned_scalar
    if not _warned_scalar:
        _warned_scalar = True
        warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                      "behavior.\nConsider using tensor.detach() first.", UserWarning, stacklevel=3)


_warned_scalar = False
