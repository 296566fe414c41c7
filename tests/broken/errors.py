"""Mutants of the catalog's chapter 'errors': Errors of misused backward calls."""

from tests.broken import _torch
from tests.broken.registry import mutant


@mutant("JAC-11")
def torch_gradient_broadcast_to_output():
    """backward(gradient) broadcasts a gradient of another shape to the output's shape instead of
    raising RuntimeError."""
    def _backward(original, tensor, gradient, *args):
        if gradient is not None and tuple(gradient.shape) != tuple(tensor.shape):
            try:
                gradient = gradient.expand_as(tensor).clone()
            except RuntimeError:
                gradient = gradient.reshape(tensor.shape) if gradient.numel() == tensor.numel() \
                    else gradient
        return original(tensor, gradient, *args)

    _torch.patch_backward(_backward)
