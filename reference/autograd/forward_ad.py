"""`reference.autograd.forward_ad`: forward-mode AD, as torch.autograd.forward_ad offers it.

Open a level, give some tensors a tangent with `make_dual`, compute, and read each result's
tangent, its Jacobian-vector product J v, with `unpack_dual`:

    with forward_ad.dual_level():
        x = forward_ad.make_dual(x, v)
        y = f(x)
        jvp = forward_ad.unpack_dual(y).tangent

How tangents live on tensors and flow through ops is dual.py's; this module is the user's side:
the level, and the checks torch makes before a tensor gets a tangent.
"""
import collections

from .. import dual, grad_mode
from ..ops import reshape

NO_LEVEL_MESSAGE = ("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                    "enter_dual_level() first.")
NESTED_MESSAGE = "Nested forward mode AD is not supported at the moment"

UnpackedDualTensor = collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])
UnpackedDualTensor.__doc__ = "What unpack_dual returns: the primal and its tangent (or None) (FWD-2)."


class dual_level:  # torch's name
    """The scope of forward-mode AD: tangents exist only inside it, and leaving it ends every
    tangent made inside (FWD-5). Levels do not nest (FWD-1). Entering gives the level's index, 0."""

    def __enter__(self):
        if dual.state.level is not None:
            raise RuntimeError(NESTED_MESSAGE)
        dual.state.level = object()  # a new level each time: tangents of an earlier one stay ended
        return 0

    def __exit__(self, *exc_info):
        dual.state.level = None


def _check_level(level, where):
    """A level given explicitly must be the open one, index 0 (levels do not nest): torch refuses
    any other (FWD-1; its internal -1, "no level", aside)."""
    if level is not None and level != 0:
        raise RuntimeError(f"Invalid level given to {where}")


def make_dual(tensor, tangent, *, level=None):
    """A view of `tensor` (FWD-10: gradients flow through it to `tensor`) that carries `tangent`.

    Only inside a level (FWD-1); the primal and the tangent must be floating point or complex
    (ValueError) and of one shape (FWD-6). The tangent is kept as it is given (FWD-2). Under inference_mode
    the view gets no tangent (FWD-9)."""
    if dual.state.level is None:
        raise RuntimeError(NO_LEVEL_MESSAGE)
    _check_level(level, "_make_dual")
    for role, t in (("primal", tensor), ("tangent", tangent)):
        if not (t.is_floating_point() or t.is_complex()):
            raise ValueError(f"Expected {role} to be floating point or complex, but got: torch.{t.dtype.name}")
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, "
            f"this is not supported. Tensor is of size {list(tensor.shape)} while the given forward gradient "
            f"is of size {list(tangent.shape)}.")
    if dual.tangent(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward gradient at the "
                           "same level 0 is not supported.")
    view = reshape(tensor, tensor.shape)
    view._fw_base = None  # a dual tensor is a base of its own in forward mode (FN-24)
    if not grad_mode.state.inference:
        dual.set_tangent(view, tangent)
    return view


def unpack_dual(tensor, *, level=None):
    """(primal, tangent): a view of `tensor` without a tangent, and `tensor`'s tangent, the one
    given to make_dual or an op's J v; None where there is none (FWD-2, FWD-3), among them every
    tensor outside a level (FWD-5)."""
    _check_level(level, "_fw_primal")
    found = dual.tangent(tensor)
    if found is None:
        return UnpackedDualTensor(tensor, None)
    primal = reshape(tensor, tensor.shape)
    primal._tangent = None
    return UnpackedDualTensor(primal, found)
