"""Breaks ACC-12 on the reference engine. Assigning .grad checks the shape only: a tensor of
another dtype, or the tensor itself, is accepted as its gradient."""

from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _set_grad(self, value):
    if value is not None and value.shape != self.shape:
        raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of "
                           f"size '{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size")
    self._grad = value


Tensor.grad = Tensor.grad.setter(_set_grad)
