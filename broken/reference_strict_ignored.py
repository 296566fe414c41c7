"""Breaks FUNC-6 on the reference engine. The functional API accepts strict=True but never checks:
it gives zeros where no path leads from an output to an input, as strict=False does."""

import autograd_conformance.reference.autograd.functional as functional
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _lenient(api):
    def never_strict(*args, strict=False, **kwargs):
        return api(*args, strict=False, **kwargs)
    return never_strict


for _api in ("vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"):
    _reference.replace(functional, _api, _lenient)
