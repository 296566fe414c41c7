"""Breaks FN-7 on the reference engine. ctx.needs_input_grad is True for every tensor argument, whether it requires grad or not."""

import autograd_conformance.reference.autograd.function as function
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_init = function.FunctionBackward.__init__


def _every_tensor(self, args):
    _init(self, args)
    self.needs_input_grad = tuple(isinstance(a, function.Tensor) for a in args)


function.FunctionBackward.__init__ = _every_tensor
