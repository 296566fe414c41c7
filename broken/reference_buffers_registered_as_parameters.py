"""Breaks MOD-10 on the reference engine. register_buffer registers the tensor as a Parameter (one
registry for every tensor of a module): the buffer requires grad, is listed by parameters() and
gets a gradient."""

import autograd_conformance.reference.nn as nn
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _as_a_parameter(self, name, tensor):
    setattr(self, name, nn.Parameter(tensor))


nn.Module.register_buffer = _as_a_parameter
