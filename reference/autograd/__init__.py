"""`reference.autograd`: backward, grad, custom Functions, saved-tensor hooks (`graph`), the legacy
Variable shim, `functional` (vjp, jvp, vhp, hvp, jacobian, hessian), forward-mode AD (`forward_ad`)
and anomaly detection (`detect_anomaly`, `set_detect_anomaly`)."""
from ..anomaly import detect_anomaly, set_detect_anomaly
from . import forward_ad, function, functional, graph  # noqa: F401 - reference.autograd.function.once_differentiable
from .function import Function
from .gradients import backward, grad
from .variable import Variable

__all__ = ["Function", "Variable", "backward", "detect_anomaly", "forward_ad", "function", "functional", "grad",
           "graph", "set_detect_anomaly"]
