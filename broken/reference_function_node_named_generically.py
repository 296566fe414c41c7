"""Breaks FN-2 on the reference engine. Every Function's node is named `FunctionBackward`, whatever the Function is called."""

import autograd_conformance.reference.autograd.function as function
import functools
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

@functools.lru_cache(maxsize=None)
def _generic_node_class(function_class):
    return type("FunctionBackward", (function.FunctionBackward,), {"_function": function_class})


function._node_class = _generic_node_class
