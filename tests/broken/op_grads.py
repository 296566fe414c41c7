"""Mutants of the catalog's chapter 'op_grads' (suites/test_op_grads.py): Gradient values per op of
the op set."""

import numpy as np
import torch

from autograd_conformance.reference.ops import arithmetic, extrema
from tests.broken import _reference, _torch
from tests.broken.registry import mutant


@mutant("OP-1")
def torch_sub_vjp_sign():
    """a - b passes +grad to b (the subtrahend's sign is dropped in backward)."""
    class _Sub(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a - b

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    def _sub(a, b, *rest, **kwargs):
        return _Sub.apply(a, b) if _torch.both_tensors(a, b) and not rest and not kwargs \
            else NotImplemented

    def _rsub(a, b):
        return _Sub.apply(b, a) if _torch.both_tensors(a, b) else NotImplemented

    _torch.ReplaceOps({"sub": _sub, "__sub__": _sub, "__rsub__": _rsub}).install()


@mutant("OP-2")
def torch_div_vjp_unsquared():
    """a / b gives b the gradient -grad * a / b instead of -grad * a / b ** 2."""
    class _Div(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a / b

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            return grad / b, -grad * a / b

    def _div(a, b, *rest, **kwargs):
        return _Div.apply(a, b) if _torch.both_tensors(a, b) and not rest and not kwargs \
            else NotImplemented

    _torch.ReplaceOps({"div": _div, "__truediv__": _div}).install()


@mutant("OP-3")
def torch_tanh_vjp_unsquared():
    """tanh's backward uses 1 - y instead of 1 - y ** 2."""
    class _Tanh(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = torch.tanh(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * (1 - y)

    def tanh(x):
        return _Tanh.apply(x)

    return {"tanh": tanh}


@mutant("OP-4")
def torch_pow_vjp_abs_base():
    """x ** k's backward computes k * |x| ** (k - 1) (pow through exp(k log|x|)), wrong for
    negative bases with even k - 1."""
    class _Pow(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x ** k

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * ctx.k * x.abs() ** (ctx.k - 1), None

    def _pow(x, k, *rest):
        return _Pow.apply(x, k) if isinstance(k, int) and not rest else NotImplemented

    _torch.ReplaceOps({"pow": _pow, "__pow__": _pow}).install()


@mutant("OP-5")
def torch_relu_vjp_unmasked():
    """relu's backward passes the gradient everywhere (it forgets the x > 0 mask)."""
    class _Relu(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return torch.relu(x)

        @staticmethod
        def backward(ctx, grad):
            return grad.clone()

    def relu(x):
        return _Relu.apply(x)

    return {"relu": relu}


@mutant("GRAD-6")
def torch_relu_grad_one_at_zero():
    """relu's backward masks with x >= 0, so the gradient at exactly 0 is 1 (torch: 0)."""
    class _Relu(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return torch.relu(x)

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * (x >= 0).to(grad.dtype)

    def relu(x):
        return _Relu.apply(x)

    return {"relu": relu}


@mutant("OP-6", "BC-5")
def torch_mean_dim_over_numel():
    """mean(dim=d)'s backward divides by numel() instead of size(d)."""
    class _MeanDim(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, dim):
            ctx.shape, ctx.dim = x.shape, dim
            return x.mean(dim=dim)

        @staticmethod
        def backward(ctx, grad):
            numel = 1
            for size in ctx.shape:
                numel *= size
            return grad.unsqueeze(ctx.dim).expand(ctx.shape) / numel, None

    def _mean(x, *args, **kwargs):
        dim = kwargs.pop("dim", args[0] if args else None)
        if dim is None or kwargs or len(args) > 1 or not isinstance(dim, int):
            return NotImplemented
        return _MeanDim.apply(x, dim)

    _torch.ReplaceOps({"mean": _mean}).install()


@mutant("OP-7")
def torch_matmul_vjp_untransposed():
    """a @ b's backward for a computes grad @ b instead of grad @ b.T (wrong values for square b, a
    shape error otherwise)."""
    class _Matmul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a @ b

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            grad_a = grad @ b if b.shape[0] == b.shape[1] else grad @ b.T * 0
            return grad_a, a.T @ grad

    def _matmul(a, b):
        if _torch.both_tensors(a, b) and a.dim() == 2 and b.dim() == 2:
            return _Matmul.apply(a, b)
        return NotImplemented

    _torch.ReplaceOps({"matmul": _matmul, "__matmul__": _matmul}).install()


@mutant("OP-8")
def torch_slice_vjp_ignores_start():
    """x[i:j]'s backward writes the gradient at rows 0 .. j - i - 1 instead of i .. j - 1 (the
    slice's start offset is forgotten)."""
    class _Slice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, start, stop):
            ctx.shape = x.shape
            return x[start:stop].clone()

        @staticmethod
        def backward(ctx, grad):
            full = grad.new_zeros(ctx.shape)
            full[: grad.shape[0]] = grad
            return full, None, None

    def _getitem(x, key):
        if isinstance(key, slice) and key.step is None and x.dim() >= 1:
            start, stop, _ = key.indices(x.shape[0])
            if start < stop:
                return _Slice.apply(x, start, stop)
        return NotImplemented

    _torch.ReplaceOps({"__getitem__": _getitem}).install()


@mutant("OP-3")
def torch_exp_vjp_missing():
    """The namespace's exp has a backward that passes the gradient through unchanged (d exp(x)
    taken as 1); torch itself, the differential oracle, is untouched."""
    class _Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return torch.exp(x)

        @staticmethod
        def backward(ctx, grad):
            return grad.clone()

    def exp(x):
        return _Exp.apply(x)

    return {"exp": exp}


# ----- max, min, amax, amin, median: the tie rules (OP-9 .. OP-12); right where none is tied ---
def _to_first_tied(self, grad):
    """A backward for the reference's even-split nodes that gives each slice's gradient wholly to
    its first entry equal to the extreme (in flat order for every element), as max(dim) does."""
    a, result = (extrema.value(saved) for saved in self.saved(grad))
    kept = extrema._kept_shape(a.shape, self.dims)
    tied = a == result.reshape(kept)
    counted = (np.cumsum(tied.reshape(-1)).reshape(a.shape) if self.dims is None
               else np.cumsum(tied, axis=self.dims[0]))
    first = (tied & (counted == 1)).astype(a.dtype)
    return (extrema.expand_to(grad.reshape(kept), a.shape) * first,)


@mutant("OP-9")
def reference_amax_tie_to_first_entry():
    """amax and amin give a tied slice's whole gradient to its first extreme (max(dim)'s rule)
    instead of 1/k to each of its k tied entries."""
    extrema.AmaxBackward0.backward = _to_first_tied
    extrema.AminBackward0.backward = _to_first_tied


@mutant("OP-10")
def reference_full_max_tie_to_first_entry():
    """max() and min() of every element give a tie's whole gradient to the first extreme (in flat
    order), the rule of max(dim), instead of splitting it evenly as amax does."""
    extrema.MaxBackward1.backward = _to_first_tied
    extrema.MinBackward1.backward = _to_first_tied


@mutant("OP-12")
def reference_median_tie_to_first_entry():
    """median() of every element gives a tie's whole gradient to the first entry equal to the
    median (in flat order), instead of splitting it evenly as amax does."""
    extrema.MedianBackward0.backward = _to_first_tied


@mutant("OP-11")
def reference_max_dim_splits_ties_evenly():
    """max(dim) and min(dim) return the right values and indices, but record amax's node (named
    MaxBackward0 / MinBackward0): a tied slice's gradient is split evenly instead of going wholly
    to the index returned."""
    def _evenly(original):
        def along(a, dim, keepdim, arg, node_class):
            _, indices = original(a, dim, keepdim, arg, node_class)
            split = type(node_class.__name__, (extrema._EvenSplit,), {"__slots__": ()})
            pick = np.max if arg is np.argmax else np.min
            return extrema.ValuesIndices(extrema._spread(a, dim, keepdim, pick, split), indices)
        return along

    _reference.replace(extrema, "_along", _evenly)


@mutant("OP-11")
def torch_max_dim_returns_the_last_tie():
    """max(dim) and min(dim) return the index of a slice's last extreme, not its first, and send
    the gradient there: consistent with the index, but not torch's documented choice."""
    def _last(name):
        def reduce(x, *args, **kwargs):
            dim = kwargs.pop("dim", args[0] if args else None)
            keepdim = kwargs.pop("keepdim", args[1] if len(args) > 1 else False)
            if not isinstance(dim, int) or kwargs or len(args) > 2:
                return NotImplemented
            values, flipped = getattr(torch, name)(x.flip(dim), dim=dim, keepdim=keepdim)
            last = x.shape[dim] - 1 - flipped if x.dim() else flipped
            return getattr(torch.return_types, name)((values, last))
        return reduce

    _torch.ReplaceOps({"max": _last("max"), "min": _last("min")}).install()


@mutant("GRAD-15")
def reference_reciprocal_skips_zero_gradients():
    """reciprocal's backward passes 0 where its incoming gradient is 0 (a sparsity shortcut)
    instead of 0 * (-1/x^2), which is NaN at x == 0: a mask applied after 1/x then hides the
    division by zero. Wherever the gradient is not 0, it is right."""
    backward = arithmetic.ReciprocalBackward0.backward

    def _skipping_zeros(self, grad):
        result, = backward(self, grad)
        return (np.where(grad == 0, 0.0, result).astype(result.dtype),)

    arithmetic.ReciprocalBackward0.backward = _skipping_zeros
