"""Mutants of the catalog's chapter 'layout' (suites/test_layout.py): Gradient layout and dtype:
strides of .grad, accumulation in place, assigning .grad."""

import numpy as np
from numpy.lib.stride_tricks import as_strided

from autograd_conformance.harness.counts import BACKWARD_PASSES
from autograd_conformance.reference import graph, layout, walk
from autograd_conformance.reference.ops import views
from autograd_conformance.reference.tensor import Tensor
from tests.broken import _reference
from tests.broken.registry import mutant


@mutant("BC-4")
def reference_first_grad_row_major():
    """A leaf's first .grad is always created row-major, so a transposed leaf gets a gradient whose
    strides differ from its own."""
    def _row_major(zeros_for_grad):
        def row_major_zeros(array, dtype=None):
            return np.zeros(array.shape, array.dtype if dtype is None else dtype)
        return row_major_zeros

    _reference.replace(layout, "zeros_for_grad", _row_major)


@mutant("LAYOUT-1")
def reference_first_grad_copies_leaf_strides():
    """A leaf's first .grad always gets the leaf's strides, as if every leaf were non-overlapping
    and dense: a narrowed leaf's gradient has gaps, and an expanded leaf's gradient overlaps
    itself (its elements alias one another)."""
    def _leaf_strides(zeros_for_grad):
        def zeros_with_leaf_strides(array, dtype=None):
            dtype = np.dtype(array.dtype if dtype is None else dtype)
            span = 1 + sum((size - 1) * stride for size, stride in zip(array.shape, layout.strides(array)))
            strides = tuple(stride // array.itemsize * dtype.itemsize for stride in array.strides)
            return as_strided(np.zeros(span, dtype), array.shape, strides)
        return zeros_with_leaf_strides

    _reference.replace(layout, "zeros_for_grad", _leaf_strides)


@mutant("ACC-3")
def reference_accumulation_out_of_place():
    """A later backward pass replaces .grad with a new tensor holding the sum (as under
    create_graph) instead of adding into the existing one, so a reference to the earlier .grad
    keeps the old values."""
    def _out_of_place(accumulate_into):
        def accumulate_into_a_new_tensor(tensor, grad):
            current = tensor._grad
            if current is None or isinstance(grad, graph.Tensor):
                accumulate_into(tensor, grad)
            else:
                tensor._grad = graph.make(current._array + grad)
        return accumulate_into_a_new_tensor

    _reference.replace(graph, "accumulate_into", _out_of_place)


@mutant("ACC-3", corner=BACKWARD_PASSES)
def reference_accumulation_out_of_place_from_the_third_pass():
    """The first two passes add into .grad in place; from the third on, a pass replaces .grad with
    a new tensor holding the sum, so a reference to the earlier .grad stops following it."""
    passes = _reference.call_counter()

    def _out_of_place(accumulate_into):
        def accumulate(tensor, grad):
            current = tensor._grad
            if passes(tensor) >= 3 and current is not None and not isinstance(grad, graph.Tensor):
                tensor._grad = graph.make(current._array + grad)
            else:
                accumulate_into(tensor, grad)
        return accumulate

    _reference.replace(graph, "accumulate_into", _out_of_place)


@mutant("ACC-5")
def reference_first_grad_not_copied():
    """The first gradient that reaches a leaf is stored as it arrived, without a copy: backward on
    the leaf itself keeps the caller's array as .grad, and the operands of x + y share one
    array, so a later pass adds into the caller's tensor or into the other leaf's .grad."""
    def _stolen(accumulate_into):
        def accumulate_without_copy(tensor, grad):
            if tensor._grad is None and isinstance(grad, np.ndarray) and grad.dtype == tensor._array.dtype \
                    and grad.shape == tensor._array.shape:
                tensor._grad = graph.make(grad)
            else:
                accumulate_into(tensor, grad)
        return accumulate_without_copy

    _reference.replace(graph, "accumulate_into", _stolen)


@mutant("ACC-5")
def reference_first_grad_kept_whatever_its_layout():
    """A leaf keeps a view of the caller's gradient as its first .grad without checking the view's
    layout: through a transpose the view of g, its elements out of reading order, is kept too,
    so a later pass adds into g."""
    _reference.replace(layout, "laid_out_as", lambda laid_out_as: lambda array, target: True)


@mutant("ACC-14")
def reference_first_grad_always_copied():
    """A leaf's first .grad is always a copy of what arrived, as the autograd page promises, also
    where torch 2.13 keeps the view of g that reshaping views made: a later pass leaves g as it
    was."""
    walk.BackwardPass.owns = lambda self, array: False


@mutant("ACC-12")
def reference_grad_assignment_checks_shape_only():
    """Assigning .grad checks the shape only: a tensor of another dtype, or the tensor itself, is
    accepted as its gradient."""
    def _set_grad(self, value):
        if value is not None and value.shape != self.shape:
            raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of "
                               f"size '{list(self.shape)}'. Please ensure that the gradient and the tensor are "
                               f"the same size")
        self._grad = value

    Tensor.grad = Tensor.grad.setter(_set_grad)


@mutant("ACC-12")
def reference_grad_assignment_ignores_the_device():
    """Assigning .grad checks type, shape and dtype but not the device: a tensor on the meta
    device becomes a CPU leaf's .grad."""
    check_and_set = Tensor.grad.fset

    def _set_grad(self, value):
        if value is not None and value.device != self.device:
            self._grad = value
        else:
            check_and_set(self, value)

    Tensor.grad = Tensor.grad.setter(_set_grad)


@mutant("LAYOUT-2")
def reference_grad_relaid_out_on_accumulation():
    """Accumulating into a .grad whose strides are not the ones the leaf's first gradient would get
    (an assigned .grad of another layout) replaces it with a new tensor of the default layout
    holding the sum, so a manually chosen layout is lost."""
    def _relaid(accumulate_into):
        def accumulate_in_default_layout(tensor, grad):
            current = tensor._grad
            if current is not None and not isinstance(grad, graph.Tensor):
                default = layout.zeros_for_grad(tensor._array, tensor._cast_grad_to)
                if layout.strides(default) != layout.strides(current._array):
                    default[...] = current._array + grad
                    tensor._grad = graph.make(default)
                    return
            accumulate_into(tensor, grad)
        return accumulate_in_default_layout

    _reference.replace(graph, "accumulate_into", _relaid)


@mutant("LAYOUT-3")
def reference_expand_grad_averaged():
    """expand()'s backward averages the gradient over the expanded dims instead of summing it: the
    shape is the input's, the values are divided by the number of copies."""
    _summed = views.ExpandBackward0.backward

    def _averaged(self, grad):
        (total,) = _summed(self, grad)
        copies = np.prod(grad.shape, dtype=int) // max(1, np.prod(total.shape, dtype=int))
        return (total / copies,)

    views.ExpandBackward0.backward = _averaged


@mutant("BC-6")
def reference_grad_dtype_ignored_by_backward():
    """grad_dtype reads and checks assignments as torch does, but backward accumulates in the
    leaf's own dtype: a leaf whose grad_dtype was set gets a .grad of its dtype."""
    Tensor._cast_grad_to = property(lambda self: None)


@mutant("BC-6", corner=BACKWARD_PASSES)
def reference_grad_dtype_lost_from_the_third_pass():
    """A leaf whose grad_dtype is set gets its .grad in that dtype and adds the second pass into
    it; from the third pass on the sum is rebuilt in the leaf's own dtype."""
    passes = _reference.call_counter()

    def _recast(accumulate_into):
        def accumulate(tensor, grad):
            accumulate_into(tensor, grad)
            if passes(tensor) >= 3 and tensor._cast_grad_to is not None:
                tensor._grad = graph.make(tensor._grad._array.astype(tensor._array.dtype))
        return accumulate

    _reference.replace(graph, "accumulate_into", _recast)


@mutant("ACC-12")
def reference_grad_assignment_converts_values():
    """Assigning .grad a value that is no tensor (a list, a number, an array) converts it to a
    tensor of the leaf's dtype instead of raising TypeError; the checks of tensors stay."""
    setter = Tensor.grad.fset

    def _set_grad(self, value):
        if value is not None and not isinstance(value, Tensor):
            value = graph.make(np.asarray(value, dtype=self._array.dtype))
        setter(self, value)

    Tensor.grad = Tensor.grad.setter(_set_grad)
