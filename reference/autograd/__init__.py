"""`reference.autograd`: backward, grad, custom Functions, saved-tensor hooks (`graph`), the legacy
Variable shim, `functional.jacobian`, and forward-mode AD (`forward_ad`)."""
from . import forward_ad, function, functional, graph  # noqa: F401 - reference.autograd.function.once_differentiable
from .function import Function
from .gradients import backward, grad
from .variable import Variable

__all__ = ["Function", "Variable", "backward", "forward_ad", "function", "functional", "grad", "graph"]
