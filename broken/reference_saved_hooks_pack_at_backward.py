"""Breaks SAV-1 on the reference engine. A saved tensor is packed only when backward needs it, so pack runs at backward time instead
of during the op."""

import autograd_conformance.reference.graph as graph
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

def _lazy_init(self, hooks, tensor):
    self.packed, self.unpack, self.tensor = None, hooks, tensor


def _pack_then_unpack(self):
    pack, unpack = self.unpack
    data = unpack(pack(self.tensor))
    alias = graph.make(data._array, self.tensor._requires_grad, self.tensor.grad_fn)
    alias._accumulator = self.tensor._accumulator
    return alias


graph.Packed.__init__ = _lazy_init
graph.Packed.unpacked = _pack_then_unpack
