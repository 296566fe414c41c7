"""Breaks JAC-16 on the reference engine. A backward whose gradient requires grad runs as under
create_graph=True, so the grads it stores require grad."""

import autograd_conformance.reference.autograd.gradients as gradients
from autograd_conformance.reference.tensor import Tensor
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _recorded_for_requiring_gradients(arguments):
    given = arguments["grad_tensors"]
    given = [given] if isinstance(given, Tensor) else given or []
    if any(isinstance(g, Tensor) and g.requires_grad for g in given):
        arguments["create_graph"] = True


_reference.rewrite_arguments(gradients, "backward", _recorded_for_requiring_gradients)
