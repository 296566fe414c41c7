"""Breaks HOOK-20 on the reference engine. grad_fn.metadata is a new empty dict at every access:
what is stored in it is lost."""

from autograd_conformance.reference import node_hooks
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

node_hooks.NodeHookMethods.metadata = property(lambda self: {})
