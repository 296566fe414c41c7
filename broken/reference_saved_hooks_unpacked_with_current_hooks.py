"""Breaks SAV-8 on the reference engine. A packed tensor is unpacked with the hooks open at backward time, not those it was packed
with: outside the context what pack returned is used as it is."""

import autograd_conformance.reference.graph as graph
from autograd_conformance.reference.hooks import saved_tensor_hooks
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

def _current_hooks(self):
    hooks = saved_tensor_hooks.current()
    data = hooks[1](self.packed) if hooks is not None else self.packed
    if not isinstance(data, graph.Tensor):
        data = graph.make(data)
    alias = graph.make(data._array, self.tensor._requires_grad, self.tensor.grad_fn)
    alias._accumulator = self.tensor._accumulator
    return alias


graph.Packed.unpacked = _current_hooks
