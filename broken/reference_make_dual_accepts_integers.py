"""Breaks FWD-6 on the reference engine. make_dual does not check dtypes: an integer primal or
tangent is accepted (its tangent then computes in integers) where torch raises ValueError."""

import autograd_conformance.reference.autograd.forward_ad as forward_ad
from autograd_conformance.reference import dual, grad_mode
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _unchecked(make_dual):
    def make_dual_of_any_dtype(tensor, tangent, *, level=None):
        if tensor.is_floating_point() and tangent.is_floating_point():
            return make_dual(tensor, tangent, level=level)
        view = tensor.reshape(tensor.shape)
        if dual.state.level is not None and not grad_mode.state.inference:
            dual.set_tangent(view, tangent)
        return view
    return make_dual_of_any_dtype


_reference.replace(forward_ad, "make_dual", _unchecked)
