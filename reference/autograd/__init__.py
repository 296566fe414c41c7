"""`reference.autograd`: backward, grad, custom Functions, saved-tensor hooks (`graph`), the legacy
Variable shim, and `functional` (vjp, jvp, vhp, hvp, jacobian, hessian)."""
from . import function, functional, graph  # noqa: F401 - reference.autograd.function.once_differentiable
from .function import Function
from .gradients import backward, grad
from .variable import Variable

__all__ = ["Function", "Variable", "backward", "function", "functional", "grad", "graph"]
