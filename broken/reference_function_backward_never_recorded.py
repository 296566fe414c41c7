"""Breaks FN-17 on the reference engine. A Function's backward always runs under no_grad, even under create_graph, so its gradients
are constants and the second derivatives through it are missing."""

import autograd_conformance.reference.autograd.function as function
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_backward = function.FunctionBackward.backward


def _unrecorded(self, grad):
    with function.grad_mode.no_grad():
        return _backward(self, grad)


function.FunctionBackward.backward = _unrecorded
