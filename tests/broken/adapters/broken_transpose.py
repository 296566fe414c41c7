"""The reference engine whose transpose raises for one dim pair, `(-3, -1)` (a young engine's
normalisation of negative dims), as in the trial that set ops aside: its own verdict fails, so
transpose is set aside, fails OP-8 alone, and every other behaviour is judged without it."""

from autograd_conformance import reference
from autograd_conformance.reference.tensor import Tensor

name = "broken-transpose"
version = reference.version
capabilities = reference.capabilities
to_numpy = reference.to_numpy
_transpose = Tensor.transpose


def __getattr__(attribute):
    return getattr(reference, attribute)


def _broken(self, dim0, dim1):
    if (dim0, dim1) == (-3, -1):
        raise IndexError(f"transpose: dims ({dim0}, {dim1}) out of range for {self.dim()} dims")
    return _transpose(self, dim0, dim1)


Tensor.transpose = _broken
