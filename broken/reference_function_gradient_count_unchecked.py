"""Breaks FN-11 on the reference engine. What backward returns is cut or padded with None to the number of arguments, so a backward
that returns too many or too few gradients goes unnoticed."""

import autograd_conformance.reference.autograd.function as function
from types import SimpleNamespace
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_backward = function.FunctionBackward.backward


def _padded(self, grad):
    user = type(self)._function.backward
    count = len(self._arguments)

    def pad(ctx, *grads):
        returned = user(ctx, *grads)
        returned = returned if isinstance(returned, tuple) else (returned,)
        return (returned + (None,) * count)[:count]
    self._function = SimpleNamespace(backward=pad)
    return _backward(self, grad)


function.FunctionBackward.backward = _padded
