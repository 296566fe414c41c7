"""Copies that stay in the graph: clone, and dtype conversions (LEAF-3). Forward mode copies the
tangent alike (`jvp`)."""
from ..dual import jvp, unchanged
from ..graph import Node, record
from .common import cast, output


def clone(a):
    """A copy that stays in the graph (LEAF-3: a non-leaf), its elements in row-major order."""
    return jvp(output(a._array.copy(), record(CloneBackward0, a)), (a,), unchanged)


def contiguous(a):
    """a itself if its elements are in row-major order, else its clone: where reshape and
    flatten then give views (VIEW-3)."""
    return a if a._array.flags.c_contiguous else clone(a)


class CloneBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return (grad,)


def to(a, dtype):
    """A dtype conversion: the same tensor if nothing changes (LEAF-4), else ToCopyBackward0 (LEAF-3)."""
    if isinstance(dtype, str):
        return a
    if a._array.dtype == dtype.numpy:
        return a
    out = a._array.astype(dtype.numpy)
    node = record(ToCopyBackward0, a) if dtype.is_floating_point or dtype.is_complex else None
    if node is not None:
        node.dtype = a._array.dtype
    return jvp(output(out, node), (a,), unchanged)


class ToCopyBackward0(Node):
    __slots__ = ("dtype",)

    def backward(self, grad):
        return (cast(grad, self.dtype),)
