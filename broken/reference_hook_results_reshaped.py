"""Breaks HOOK-8 on the reference engine. A tensor hook's result with as many elements as the
gradient is reshaped to the gradient's shape and cast to its dtype instead of refused; only
another number of elements raises."""

import numpy as np

import autograd_conformance.reference.node_hooks as node_hooks
from autograd_conformance.reference.tensor import Tensor, make
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _reshaping(replacement):
    def reshaped(hook, new, old):
        like = old if isinstance(old, Tensor) else make(np.asarray(old))
        if new.numel() == like.numel():
            new = new.reshape(tuple(like.shape)).to(like.dtype)
        return replacement(hook, new, old)
    return reshaped


_reference.replace(node_hooks, "replacement", _reshaping)
