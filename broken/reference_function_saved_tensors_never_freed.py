"""Breaks FN-6 on the reference engine. What ctx saved outlives backward: a second backward through the node without retain_graph
reads it again instead of raising."""

import autograd_conformance.reference.autograd.function as function
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_save = function.FunctionBackward.save_for_backward
_saved_tensors = function.FunctionBackward.saved_tensors.fget


def _save_twice(self, *tensors):
    _save(self, *tensors)
    self._kept = tensors


def _never_freed(self):
    if self._saved is None:
        self._saved = self._kept
    return _saved_tensors(self)


function.FunctionBackward.save_for_backward = _save_twice
function.FunctionBackward.saved_tensors = property(_never_freed)
