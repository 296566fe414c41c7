"""The reference engine whose `set_grad_enabled` cannot decorate: as a call it switches grad mode at
once (MODE-5), but used as a decorator it raises, after the call has switched the mode, so
`@set_grad_enabled(False)` leaves grad mode off (a young engine's MODE-11 bug). Every test that uses
the decorator must fail, and no other: the harness restores the mode after each test."""

from autograd_conformance import reference
from autograd_conformance.reference import grad_mode

name = "leaky-grad-mode-decorator"
version = reference.version
capabilities = reference.capabilities
to_numpy = reference.to_numpy


def __getattr__(attribute):
    return getattr(reference, attribute)


class set_grad_enabled(grad_mode.set_grad_enabled):  # torch's name
    def __call__(self, func):
        raise TypeError("set_grad_enabled cannot decorate a function")
