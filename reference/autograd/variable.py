"""The pre-0.4 `Variable`, kept for old code: it makes plain tensors (RETAIN-13)."""
import warnings

from ..tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor)


class Variable(metaclass=_VariableMeta):
    """The pre-0.4 wrapper: now returns a plain Tensor leaf; `volatile` only warns (RETAIN-13)."""

    def __new__(cls, data, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        return data.detach().requires_grad_(requires_grad)
