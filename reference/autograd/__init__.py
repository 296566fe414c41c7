"""`reference.autograd`: backward, grad, the legacy Variable shim, and `functional.jacobian`."""
from . import functional  # noqa: F401 - reference.autograd.functional.jacobian
from .gradients import backward, grad
from .variable import Variable

__all__ = ["Variable", "backward", "functional", "grad"]
