"""The reference engine without four ops of the op set, declared in `missing_ops`: `mean`, `abs`,
`clone` and tensor exponents. Each raises NotSupportedByEngine where a program would use it, as a
young engine's missing op would; random programs must never draw them, and the tests of those ops
are skipped, naming them."""

from autograd_conformance import reference
from autograd_conformance.reference.tensor import Tensor

name = "lacks-ops"
version = reference.version
capabilities = reference.capabilities
to_numpy = reference.to_numpy
missing_ops = frozenset({"mean", "abs", "clone", "pow_tensor"})


class NotSupportedByEngine(Exception):
    """Deliberately not a RuntimeError, as in the bundled adapters."""


def __getattr__(attribute):
    return getattr(reference, attribute)


def _missing(what):
    def refuse(*args, **kwargs):
        raise NotSupportedByEngine(f"no {what}")
    return refuse


abs = _missing("abs")  # torch's name
Tensor.mean = _missing("mean")
Tensor.clone = _missing("clone")
Tensor.abs = Tensor.__abs__ = _missing("abs")
_power = Tensor.__pow__


def _pow(self, exponent):
    if isinstance(exponent, Tensor):
        raise NotSupportedByEngine("no tensor exponent")
    return _power(self, exponent)


Tensor.__pow__ = _pow
