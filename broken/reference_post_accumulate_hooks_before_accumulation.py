"""Breaks HOOK-9 on the reference engine. A leaf's post-accumulate-grad hooks run just before the
gradient is added to .grad, so they see the .grad of the previous passes (None in the first)."""

import autograd_conformance.reference.graph as graph
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _hooks_first(accumulate_into):
    def accumulate_after_the_hooks(tensor, grad):
        hooks, tensor._post_accumulate_hooks = tensor._post_accumulate_hooks, None
        try:
            for hook in (hooks or {}).values():
                hook(tensor)
            accumulate_into(tensor, grad)
        finally:
            tensor._post_accumulate_hooks = hooks
    return accumulate_after_the_hooks


_reference.replace(graph, "accumulate_into", _hooks_first)
