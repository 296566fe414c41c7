"""Breaks SAV-7 on the reference engine. A custom Function's ctx.save_for_backward keeps its tensors directly, past the saved-tensor
hooks."""

import autograd_conformance.reference.autograd.function as function
import autograd_conformance.reference.hooks as hooks
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_save = function.FunctionBackward.save_for_backward


def _past_the_hooks(self, *tensors):
    stack = hooks.saved_tensor_hooks.stack[:]
    hooks.saved_tensor_hooks.stack.clear()
    try:
        _save(self, *tensors)
    finally:
        hooks.saved_tensor_hooks.stack[:] = stack


function.FunctionBackward.save_for_backward = _past_the_hooks
