"""Complex numbers: torch.complex(real, imag), .real, .imag and .conj(), each forward followed by
its backward node.

Gradients follow torch's convention (CPLX-2): for a real loss L of z = x + iy, z.grad is
dL/dx + i dL/dy (twice the conjugate Wirtinger derivative dL/dz*). These four ops are where the
real and the complex domain meet, so their backward says how the two parts of a gradient split and
join: a real input gets the real part of the complex gradient it feeds (CPLX-6), a complex input
fed through its real (imaginary) part gets the real gradient as its real (imaginary) part
(CPLX-4). Holomorphic ops elsewhere multiply by the conjugate of their derivative (common.conj).
Unlike torch, .real, .imag and .conj() return copies, not views: the suites do not write through
them.
"""
import numpy as np

from .. import dtypes
from ..dual import jvp
from ..graph import Node, record
from ..tensor import Tensor
from .common import cast, output
from .common import conj as conjugate


def complex(real, imag):  # torch's name
    """torch.complex(real, imag): both float32 (complex64) or both float64 (complex128)."""
    x, y = real._array, imag._array
    if x.dtype != y.dtype or x.dtype.kind != "f":
        raise RuntimeError(f"Expected object of scalar type {dtypes.from_numpy(x.dtype).torch_name} but got "
                           f"scalar type {dtypes.from_numpy(y.dtype).torch_name} for second argument")
    out = np.asarray(x + 1j * y).astype(np.result_type(x.dtype, np.complex64))
    node = record(ComplexBackward0, real, imag)
    if node is not None:
        node.metas = (x.shape, y.shape)
    return jvp(output(out, node), (real, imag), lambda dx: dx, lambda dy: 1j * dy)


class ComplexBackward0(Node):
    """d complex(x, y): x gets the gradient's real part, y its imaginary part (CPLX-6)."""

    __slots__ = ("metas",)

    def backward(self, grad):
        return (real(grad) if self.needs_grad(0) else None,
                imag(grad) if self.needs_grad(1) else None)


def real(z):
    """The real part of a complex tensor (a real tensor is its own real part, like torch)."""
    if not _is_complex(z):
        return z
    return _part(z, np.real, "real")


def imag(z):
    if not _is_complex(z):
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _part(z, np.imag, "imag")


def _is_complex(z):
    return (z._array if isinstance(z, Tensor) else z).dtype.kind == "c"


def _part(z, take, part):
    """.real or .imag: on a NumPy gradient (a backward formula) the array's part, else an op."""
    if not isinstance(z, Tensor):
        return take(z)
    node = record(SelectBackward0, z)
    if node is not None:
        node.part, node.dtype = part, z._array.dtype
    return jvp(output(np.array(take(z._array)), node), (z,), take)


class SelectBackward0(Node):
    """d z.real: the real gradient g becomes g + 0i; d z.imag: g becomes 0 + ig, because L depends
    on y = Im z only, so dL/dx + i dL/dy = i g (CPLX-4). torch records both as a select of
    view_as_real, hence the name."""

    __slots__ = ("part", "dtype")

    def backward(self, grad):
        return (cast(grad, self.dtype) if self.part == "real" else grad * 1j,)


def conj(z):
    """The complex conjugate; a real tensor is returned as it is, like torch."""
    if not _is_complex(z):
        return z
    return jvp(output(np.conj(z._array), record(ConjBackward0, z)), (z,), np.conj)


class ConjBackward0(Node):
    """d conj(z): conj(grad). L(conj z) has dL/dx unchanged and dL/dy negated (CPLX-4)."""

    __slots__ = ()

    def backward(self, grad):
        return (conjugate(grad),)
