"""Breaks MODE-12 on the reference engine. inference_mode(False) only undoes inference mode: inside
no_grad it leaves grad mode off, where torch turns it on."""

import autograd_conformance.reference.grad_mode as grad_mode
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _target(self):
    if self._mode:
        return False, True
    return (True if grad_mode.state.inference else grad_mode.state.enabled), False


grad_mode.inference_mode._target = _target
