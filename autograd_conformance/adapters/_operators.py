"""The arithmetic that every wrapping adapter forwards. The mygrad, tinygrad and paddle adapters
each wrap their engine's tensor in a class of their own (holding it as `_t`); Python's operators
of the op set are the same for all three: apply the operator to the engine's tensors and wrap the
result again. Kept here once, so that each adapter's module shows only what it translates."""

from __future__ import annotations

import operator


def unwrap(value):
    """The engine-level value of an adapter tensor; anything else (a Python number, an array, an
    engine tensor) as it is."""
    return value._t if isinstance(value, Operators) else value


def _binary(apply, reflected: bool = False):
    def method(self, other):
        left, right = (unwrap(other), self._t) if reflected else (self._t, unwrap(other))
        return type(self)(apply(left, right))
    method.__name__ = f"__{'r' if reflected else ''}{apply.__name__.strip('_')}__"
    return method


class Operators:
    """`-a`, `a + b`, `a - b`, `a * b`, `a / b`, `a ** k`, `k ** a`, `a @ b` (and the reflected forms) on the
    wrapped tensors, each result wrapped in the adapter's class; and `len(a)`."""

    __slots__ = ()

    def __len__(self) -> int:
        return len(self._t)

    def __neg__(self):
        return type(self)(-self._t)

    __add__, __radd__ = _binary(operator.add), _binary(operator.add, reflected=True)
    __sub__, __rsub__ = _binary(operator.sub), _binary(operator.sub, reflected=True)
    __mul__, __rmul__ = _binary(operator.mul), _binary(operator.mul, reflected=True)
    __truediv__ = _binary(operator.truediv)
    __rtruediv__ = _binary(operator.truediv, reflected=True)
    __pow__, __rpow__ = _binary(operator.pow), _binary(operator.pow, reflected=True)
    __matmul__, __rmatmul__ = _binary(operator.matmul), _binary(operator.matmul, reflected=True)
