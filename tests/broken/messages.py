"""Mutants of the catalog's chapter 'messages' (suites/test_messages.py): Exact error messages."""

import re

import torch

from tests.broken import _torch
from tests.broken.registry import mutant


@mutant("MSG-1", "MSG-2", "MSG-3", "MSG-4", "MSG-8")
def torch_reworded_errors():
    """Every autograd error is a RuntimeError, as the core level requires, but with the engine's
    own wording instead of torch's."""
    _WORDING = [
        ("Trying to backward through the graph a second time", "graph already freed"),
        ("grad can be implicitly created only for scalar outputs", "output must be a scalar"),
        ("does not require grad and does not have a grad_fn", "nothing to differentiate"),
        ("Only Tensors of floating point and complex dtype can require gradients",
         "integer tensors are not differentiable"),
        ("Mismatch in shape", "gradient has the wrong shape"),
    ]

    def _reworded(error):
        for torch_text, own_text in _WORDING:
            if torch_text in str(error):
                return RuntimeError(own_text)
        return error

    def _backward(original, tensor, *args):
        try:
            return original(tensor, *args)
        except RuntimeError as error:
            raise _reworded(error) from None

    def tensor(*args, **kwargs):
        try:
            return torch.tensor(*args, **kwargs)
        except RuntimeError as error:
            raise _reworded(error) from None

    _torch.patch_backward(_backward)
    return {"tensor": tensor}


@mutant("MSG-9")
def torch_wraps_dims_around():
    """Reductions take an out-of-range dim modulo the number of dims, as an index into a ring,
    instead of raising torch's IndexError."""
    def _wrapping(original):
        def reduce(self, *args, **kwargs):
            ring = max(self.dim(), 1)
            if args and isinstance(args[0], int):
                args = (args[0] % ring, *args[1:])
            if isinstance(kwargs.get("dim"), int):
                kwargs["dim"] %= ring
            return original(self, *args, **kwargs)
        return reduce

    for name in ("sum", "mean", "amax", "max"):
        setattr(torch.Tensor, name, _wrapping(getattr(torch.Tensor, name)))


@mutant("MSG-10")
def torch_hook_dtype_named_by_tensor_type():
    """A hook that changes its gradient's dtype is reported with each dtype named as Tensor.type()
    names it, a complex one torch.ComplexDoubleTensor where torch 2.13 writes its legacy type name
    CPUComplexDoubleType."""
    def _backward(original, tensor, *args):
        try:
            return original(tensor, *args)
        except RuntimeError as error:
            if "has changed the type of value" not in str(error):
                raise
            raise RuntimeError(re.sub(r"CPUComplex(\w+)Type", r"torch.Complex\1Tensor", str(error))) from None

    _torch.patch_backward(_backward)


@mutant("MSG-11")
def torch_any_negative_size_inferred():
    """reshape and view take any negative size as the one to infer, where torch infers only -1:
    x.reshape(-2) works as x.reshape(-1) instead of raising 'invalid shape dimension -2 ...'."""
    def _inferring(original):
        def reshape(self, *shape, **kwargs):
            sizes = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
            if all(isinstance(size, int) for size in sizes) and sum(size < 0 for size in sizes) == 1:
                shape = tuple(-1 if size < 0 else size for size in sizes)
            return original(self, *shape, **kwargs)
        return reshape

    for name in ("reshape", "view"):
        setattr(torch.Tensor, name, _inferring(getattr(torch.Tensor, name)))
