"""Breaks FWD-9 on the reference engine. Forward mode ignores inference_mode: ops inside it carry
tangents, and unpack_dual there reads them."""

import types

import autograd_conformance.reference.dual as dual
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


dual._modes = types.SimpleNamespace(inference=False)
