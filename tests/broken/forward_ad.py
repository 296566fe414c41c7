"""Mutants of the catalog's chapter 'forward_ad' (suites/test_forward_ad.py): Forward-mode AD:
dual_level, make_dual, unpack_dual and tangents."""

import types

import numpy as np
import torch
from torch.autograd import forward_ad as fwAD

from autograd_conformance.reference import dual, grad_mode
from autograd_conformance.reference.autograd import forward_ad
from autograd_conformance.reference.ops import elementwise
from autograd_conformance.reference.tensor import Tensor, make
from tests.broken import _reference, _torch
from tests.broken.registry import mutant


@mutant("FWD-1")
def reference_make_dual_outside_a_level():
    """make_dual outside any dual_level does not refuse: it returns the view it would make inside
    one, without a tangent, so that a forgotten level goes unnoticed (every tangent is then
    silently None)."""
    def _lenient(make_dual):
        def make_dual_anywhere(tensor, tangent, *, level=None):
            if dual.state.level is None:
                return tensor.reshape(tensor.shape)
            return make_dual(tensor, tangent, level=level)
        return make_dual_anywhere

    _reference.replace(forward_ad, "make_dual", _lenient)


@mutant("FWD-1")
def reference_dual_levels_nest():
    """A dual_level entered inside another is accepted: it opens a new level and, on exit, gives
    back the outer one, as an engine with nested forward mode would; torch refuses nesting."""
    def _enter(self):
        self.outer, dual.state.level = dual.state.level, object()
        return 0

    def _exit(self, *exc_info):
        dual.state.level = self.outer

    forward_ad.dual_level.__enter__ = _enter
    forward_ad.dual_level.__exit__ = _exit


@mutant("FWD-2")
def reference_unpack_dual_plain_tuple():
    """unpack_dual returns a plain tuple (primal, tangent): the right items in the right order, but
    without the fields .primal and .tangent."""
    def _plain(unpack_dual):
        def unpack_dual_as_tuple(tensor, *, level=None):
            return tuple(unpack_dual(tensor, level=level))
        return unpack_dual_as_tuple

    _reference.replace(forward_ad, "unpack_dual", _plain)


@mutant("FWD-2")
def reference_make_dual_casts_the_tangent():
    """make_dual casts a tangent of another dtype to the primal's (a float64 tangent of a float32
    primal becomes a float32 copy): right whenever the dtypes agree."""
    def _in_the_primals_dtype(arguments):
        arguments["tangent"] = arguments["tangent"].to(arguments["tensor"].dtype)

    _reference.rewrite_arguments(forward_ad, "make_dual", _in_the_primals_dtype)


@mutant("FWD-2")
def reference_make_dual_copies_its_primal():
    """The dual tensor is a differentiable copy of x (clone) instead of a view: its values, its
    tangent and the gradients through it are right, but a later in-place change of x does not
    show in it."""
    def _of_a_copy(arguments):
        arguments["tensor"] = arguments["tensor"].clone()

    _reference.rewrite_arguments(forward_ad, "make_dual", _of_a_copy)


@mutant("FWD-3")
def reference_missing_tangents_as_zeros():
    """Inside a level, unpack_dual of a tensor without a tangent gives zeros instead of None, as an
    engine that gives every tensor a tangent would."""
    def _zeros(unpack_dual):
        def unpack_dual_with_zeros(tensor, *, level=None):
            primal, tangent = unpack_dual(tensor, level=level)
            if tangent is None and dual.state.level is not None:
                tangent = make(np.zeros_like(tensor._array))
            return forward_ad.UnpackedDualTensor(primal, tangent)
        return unpack_dual_with_zeros

    _reference.replace(forward_ad, "unpack_dual", _zeros)


@mutant("FWD-4")
def reference_tanh_jvp_from_input():
    """tanh's forward-mode rule takes its derivative from the input instead of the output: da * (1
    - a^2) where it is da * (1 - tanh(a)^2). Its backward is right, so only tangents are wrong."""
    def _from_input(tanh):
        def tanh_with_input_jvp(a):
            out = tanh(a)
            tangent = dual.tangent(a)
            if tangent is not None:
                dual.set_tangent(out, make(tangent._array * (1 - a._array * a._array)))
            return out
        return tanh_with_input_jvp

    _reference.replace(elementwise, "tanh", _from_input)


@mutant("FWD-5")
def reference_tangents_outlive_their_level():
    """A tangent is never deleted: leaving the dual_level does not end it, so after the level, and
    in the next one, the tensor still has it."""
    def _kept(tangent):
        def tangent_of_any_level(t):
            entry = t._tangent
            return None if entry is None or dual._modes.inference else entry[1]
        return tangent_of_any_level

    _reference.replace(dual, "tangent", _kept)


@mutant("FWD-6")
def reference_make_dual_checks_numel():
    """make_dual checks that the tangent has as many elements as the primal, not the same shape,
    and reshapes it: a tangent of shape (1, n) for a primal of shape (n,) is accepted."""
    def _reshaping(make_dual):
        def make_dual_reshaped(tensor, tangent, *, level=None):
            if tangent.numel() == tensor.numel():
                tangent = tangent.reshape(tensor.shape)
            return make_dual(tensor, tangent, level=level)
        return make_dual_reshaped

    _reference.replace(forward_ad, "make_dual", _reshaping)


@mutant("FWD-6")
def reference_make_dual_accepts_integers():
    """make_dual does not check dtypes: an integer primal or tangent is accepted (its tangent then
    computes in integers) where torch raises ValueError."""
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


@mutant("FWD-6")
def reference_make_dual_refuses_complex():
    """make_dual accepts floating-point primals and tangents only, refusing complex ones with the
    ValueError it gives integers (the catalog's rule before 2026-11-27)."""
    def _real_only(make_dual):
        def make_dual_of_reals(tensor, tangent, *, level=None):
            for role, t in (("primal", tensor), ("tangent", tangent)):
                if t.is_complex():
                    raise ValueError(f"Expected {role} to be floating point, but got: {t.dtype}")
            return make_dual(tensor, tangent, level=level)
        return make_dual_of_reals

    _reference.replace(forward_ad, "make_dual", _real_only)


@mutant("FWD-7")
def reference_no_grad_stops_tangents():
    """Ops under no_grad carry no tangent: forward mode is switched off with recording, as if
    no_grad applied to it."""
    def _gated(jvp):
        def jvp_in_grad_mode(out, inputs, *rules):
            return jvp(out, inputs, *rules) if grad_mode.state.enabled else out
        return jvp_in_grad_mode

    _reference.replace(dual, "jvp", _gated)


@mutant("FWD-7")
def reference_set_grad_enabled_stops_tangents():
    """Ops inside a `with set_grad_enabled(False)` block carry no tangent (no_grad blocks still
    do): that switch is read as turning off differentiation of both kinds."""
    blocks = []
    enter, leave = grad_mode.set_grad_enabled.__enter__, grad_mode.set_grad_enabled.__exit__

    def _enter(self):
        blocks.append(self._mode)
        return enter(self)

    def _exit(self, *exc_info):
        blocks.pop()
        return leave(self, *exc_info)

    def _gated(jvp):
        def jvp_unless_switched_off(out, inputs, *rules):
            return out if blocks and not blocks[-1] else jvp(out, inputs, *rules)
        return jvp_unless_switched_off

    grad_mode.set_grad_enabled.__enter__, grad_mode.set_grad_enabled.__exit__ = _enter, _exit
    _reference.replace(dual, "jvp", _gated)


@mutant("FWD-8")
def reference_detach_keeps_tangent():
    """detach() copies the tangent onto the alias it returns: the alias is cut from the graph, but
    forward mode still flows through it."""
    _detach = Tensor.detach

    def _detach_keeping_tangent(self):
        alias = _detach(self)
        alias._tangent = self._tangent
        return alias

    Tensor.detach = _detach_keeping_tangent


@mutant("FWD-9")
def reference_forward_ad_ignores_inference_mode():
    """Forward mode ignores inference_mode: ops inside it carry tangents, and unpack_dual there
    reads them."""
    dual._modes = types.SimpleNamespace(inference=False)


@mutant("FWD-10")
def reference_make_dual_copies_primal():
    """make_dual returns a copy of the primal that carries the tangent, a new leaf without grad:
    tangents are right, but no gradient reaches the primal."""
    def _copying(make_dual):
        def make_dual_copy(tensor, tangent, *, level=None):
            make_dual(tensor, tangent, level=level)  # its checks
            copy = make(tensor._array.copy())
            dual.set_tangent(copy, tangent)
            return copy
        return make_dual_copy

    _reference.replace(forward_ad, "make_dual", _copying)


def _dual(*tensors):
    return all(isinstance(t, torch.Tensor) and fwAD.unpack_dual(t).tangent is not None for t in tensors)


@mutant("FWD-11")
def torch_linear_tangent_terms_reversed():
    """nn.Linear of dual x, W and b adds its tangent's terms in the reverse of torch's order, (x
    W_t^T + x_t W^T) + b_t: equal in exact arithmetic, but at x = W = 1, b_t = 1 and x_t = W_t =
    half an ulp of 1 it rounds to 1 + 2e where torch gives 1."""
    class _Linear(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, weight, bias):
            ctx.save_for_forward(x, weight)
            return torch.nn.functional.linear(x, weight, bias)

        @staticmethod
        def jvp(ctx, x_t, weight_t, bias_t):
            x, weight = ctx.saved_tensors
            return x @ weight_t.T + x_t @ weight.T + bias_t

    def _linear(x, weight, bias=None):
        if bias is None or x.dim() != 2 or not _dual(x, weight, bias):
            return NotImplemented
        return _Linear.apply(x, weight, bias)

    _torch.ReplaceOps({"linear": _linear}).install()


@mutant("FWD-12")
def torch_zero_derivative_times_the_tangent():
    """The tangent of sgn and of x ** 0 is the input's tangent times their derivative 0, not a zero
    tensor: nan where the tangent is nan or inf, -0.0 where it is negative."""
    class _ZeroDerivative(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, op):
            return op(x)

        @staticmethod
        def jvp(ctx, x_t, _):
            return x_t * 0.0

        @staticmethod
        def backward(ctx, grad):
            return grad * 0.0, None

    def _sgn(x, *rest, **kwargs):
        if rest or kwargs or not _dual(x):
            return NotImplemented
        return _ZeroDerivative.apply(x, torch.sgn)

    def _pow(x, exponent, *rest, **kwargs):
        if rest or kwargs or not isinstance(exponent, (int, float)) or exponent != 0 or not _dual(x):
            return NotImplemented
        return _ZeroDerivative.apply(x, lambda primal: torch.pow(primal, exponent))

    _torch.ReplaceOps({"sgn": _sgn, "pow": _pow, "__pow__": _pow}).install()
