"""Breaks LEAF-5, JAC-5 and JAC-6. The product's backward gives the second operand -grad * a instead
of grad * a: the sign of one op's vector-Jacobian product is wrong, everything else is torch."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



class _Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, -grad * a


_MUL = {"mul", "__mul__"}


class _WrongMul(_torch.ArgsMode):
    def __torch_function__(self, func, types_, args=(), kwargs=None):
        if (getattr(func, "__name__", None) in _MUL and len(args) == 2 and not kwargs
                and all(isinstance(a, torch.Tensor) for a in args) and torch.is_grad_enabled()
                and any(a.requires_grad for a in args)):
            a, b = args
            return _Mul.apply(a, b)
        return func(*args, **(kwargs or {}))


_WrongMul().install()
