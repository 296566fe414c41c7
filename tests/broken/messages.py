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
