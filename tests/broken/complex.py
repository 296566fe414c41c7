"""Mutants of the catalog's chapter 'complex' (suites/test_complex.py): Complex autograd: the
conjugate Wirtinger convention, holomorphic and cross-domain functions."""

import numpy as np

import autograd_conformance.reference.ops.complex_numbers as complex_ops
from autograd_conformance.reference import creation, graph
from autograd_conformance.reference.autograd import gradients
from autograd_conformance.reference.ops import arithmetic, common
from autograd_conformance.reference.ops.common import sum_to
from autograd_conformance.reference.tensor import Tensor, make
from tests.broken import _reference
from tests.broken.registry import mutant


@mutant("CPLX-1")
def reference_complex_cannot_require_grad():
    """Only floating-point tensors may require grad: a complex leaf with requires_grad=True, or
    requires_grad_(), raises like an integer one."""
    MESSAGE = "only Tensors of floating point dtype can require gradients"

    def _floating_only(leaf):
        def floating_leaf(array, requires_grad):
            if requires_grad and array.dtype.kind == "c":
                raise RuntimeError(MESSAGE)
            return leaf(array, requires_grad)
        return floating_leaf

    _requires_grad_ = Tensor.requires_grad_

    def _requires_grad_floating_only(self, requires_grad=True):
        if requires_grad and self._array.dtype.kind == "c":
            raise RuntimeError(MESSAGE)
        return _requires_grad_(self, requires_grad)

    _reference.replace(creation, "_leaf", _floating_only)
    Tensor.requires_grad_ = _requires_grad_floating_only


@mutant("CPLX-2")
def reference_complex_grad_is_wirtinger():
    """A complex leaf's .grad is the conjugate of torch's, 2 dL/dz instead of 2 dL/dz*, as in a
    convention that stores the Wirtinger derivative."""
    def _conjugated(accumulate_into):
        def accumulate_conjugate(tensor, grad):
            return accumulate_into(tensor, np.conj(grad) if np.iscomplexobj(grad) else grad)
        return accumulate_conjugate

    _reference.replace(graph, "accumulate_into", _conjugated)


@mutant("CPLX-2", "CPLX-1")
def reference_complex_grad_halved():
    """A complex leaf's .grad is dL/dz* itself, half of torch's dL/dx + i dL/dy: sum(|z|^2) gives z
    instead of 2z."""
    def _halved(accumulate_into):
        def accumulate_half(tensor, grad):
            return accumulate_into(tensor, grad / 2 if np.iscomplexobj(grad) else grad)
        return accumulate_half

    _reference.replace(graph, "accumulate_into", _halved)


@mutant("CPLX-3", "CPLX-2", "CPLX-8")
def reference_complex_mul_unconjugated():
    """MulBackward0 multiplies the gradient by the other operand as for real numbers, without
    conjugating it: z * z backpropagates v * 2z, not v * conj(2z)."""
    def _unconjugated(self, grad):
        a, b = self.saved(grad)
        return (sum_to(grad * b, self.metas[0]) if self.needs_grad(0) else None,
                sum_to(grad * a, self.metas[1]) if self.needs_grad(1) else None)

    arithmetic.MulBackward0.backward = _unconjugated


@mutant("CPLX-4")
def reference_conj_backward_passes_through():
    """conj() passes the gradient back unchanged, as if it were the identity it is on real numbers."""
    def _unchanged(self, grad):
        return (grad,)

    complex_ops.ConjBackward0.backward = _unchanged


@mutant("CPLX-5", "CPLX-6")
def reference_real_leaf_grad_stays_complex():
    """A real input's gradient from a complex path keeps the complex dtype: the op passes it on
    uncast, and the real leaf's .grad becomes complex."""
    def _uncast(cast):
        def cast_unless_complex(grad, dtype):
            return grad if np.iscomplexobj(grad) and dtype.kind != "c" else cast(grad, dtype)
        return cast_unless_complex

    def _stored_as_is(accumulate_into):
        def accumulate_complex(tensor, grad):
            if np.iscomplexobj(grad) and not np.iscomplexobj(tensor._array) and tensor._grad is None:
                tensor._grad = make(np.array(grad))
                return None
            return accumulate_into(tensor, grad)
        return accumulate_complex

    _reference.replace(common, "cast", _uncast)
    _reference.replace(graph, "accumulate_into", _stored_as_is)


@mutant("CPLX-6", "CPLX-5")
def reference_real_leaf_takes_imaginary_part():
    """A complex gradient that reaches a real input is cast by keeping its imaginary part instead
    of its real part (the wrong half of the (re, im) pair)."""
    def _imaginary(cast):
        def cast_imaginary(grad, dtype):
            if np.iscomplexobj(grad) and dtype.kind != "c":
                grad = np.imag(grad)
            return cast(grad, dtype)
        return cast_imaginary

    _reference.replace(common, "cast", _imaginary)


@mutant("CPLX-7")
def reference_real_gradient_for_complex_output():
    """A real gradient for a complex output is accepted and cast to the complex dtype (imaginary
    part 0); only a complex gradient for a real output raises."""
    def _one_way(check):
        def check_complex_gradient_only(i, g, out):
            if g._array.dtype.kind == "c":
                check(i, g, out)
        return check_complex_gradient_only

    _reference.replace(gradients, "_check_complex_iff", _one_way)


@mutant("CPLX-8")
def reference_grad_returns_conjugate():
    """autograd.grad returns the conjugate of each complex gradient (2 dL/dz, the Wirtinger
    derivative's convention), while backward fills .grad correctly."""
    def _conjugated(for_output):
        def conjugate_for_output(g, node, output_nr):
            g = for_output(g, node, output_nr)
            return np.conj(g) if g is not None and np.iscomplexobj(g) else g
        return conjugate_for_output

    _reference.replace(gradients, "_for_output", _conjugated)


@mutant("JAC-4")
def reference_complex_implicit_gradient():
    """backward() on a complex one-element output creates the implicit gradient 1 + 0j instead of
    raising."""
    def _implicit_complex_ones(root_grads):
        def root_grads_with_complex_ones(outputs, grad_outputs, as_tensors):
            outputs = gradients._as_tuple(outputs)
            if grad_outputs is None:
                grad_outputs = [make(np.ones(out.shape, out._array.dtype))
                                if out._array.dtype.kind == "c" and out.numel() == 1 else None
                                for out in outputs]
            return root_grads(outputs, grad_outputs, as_tensors)
        return root_grads_with_complex_ones

    _reference.replace(gradients, "_root_grads", _implicit_complex_ones)
