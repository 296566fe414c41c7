"""Breaks HOOK-17 on the reference engine. autograd.grad hands every node that a needed node passes
a gradient to that gradient: the nodes still do not run, but their tensor hooks fire, also for
tensors off the paths to the inputs."""

import autograd_conformance.reference.walk as walk
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

walk.BackwardPass.executes = lambda self, node: node in self.reached
