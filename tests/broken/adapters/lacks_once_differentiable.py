"""The reference engine without `autograd.function.once_differentiable`, declaring every capability,
`custom_function` included, as a young engine whose Functions work might: the custom-Function tests
that use the decorator must be skipped, naming it, and every other one must run (and pass).
The reference engine's own modules are left as they are; this adapter's `autograd` is a copy
of their names with the one left out."""

import types

from autograd_conformance import reference

name = "lacks-once-differentiable"
version = reference.version
capabilities = reference.capabilities
to_numpy = reference.to_numpy


def _without(module, *left_out):
    """`module`'s names but `left_out`, in a namespace of their own."""
    return types.SimpleNamespace(**{key: value for key, value in vars(module).items()
                                    if key not in left_out})


autograd = _without(reference.autograd, "function")
autograd.function = _without(reference.autograd.function, "once_differentiable")


def __getattr__(attribute):
    return getattr(reference, attribute)
