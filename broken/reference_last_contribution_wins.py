"""Breaks MISC-1 and LEAF-5 on the reference engine. When several edges deliver gradient to the same
node in one backward pass, the walk keeps the last contribution instead of their sum (a dict
assignment where an addition was meant), so diamonds and shared subexpressions lose gradient."""

import inspect
import textwrap

import autograd_conformance.reference.walk
from autograd_conformance import reference
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_SUM = "pending[node] = pending[node] + grad if node in pending else grad"
_source = textwrap.dedent(inspect.getsource(reference.walk._arrive))
if _SUM not in _source:
    raise ImportError("reference.walk._arrive changed: update this mutant's patch")
exec(compile(_source.replace(_SUM, "pending[child] = child_grad"), reference.walk.__file__,
             "exec"), reference.walk.__dict__)
