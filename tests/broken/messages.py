"""Mutants of the catalog's chapter 'messages' (suites/test_messages.py): Exact error messages."""

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
