"""Breaks VIEW-6 on the reference engine. An in-place op through a view of a leaf that requires grad is not refused (only the leaf
itself is): the leaf becomes a CopySlices non-leaf."""

import inspect
import textwrap

import autograd_conformance.reference.ops.inplace as inplace
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_CHECK = "base is not None and base._requires_grad and base.grad_fn is None"
_source = textwrap.dedent(inspect.getsource(inplace._check_inplace))
if _CHECK not in _source:
    raise ImportError("reference.ops.inplace._check_inplace changed: update this mutant's patch")
exec(compile(_source.replace(_CHECK, "False"), inplace.__file__, "exec"), inplace.__dict__)
