"""Breaks GRAD-10 on the reference engine. The unused-input error counts the inputs from 1: 'The
differentiated Tensor at index 1 ...' for the first input."""

import re

import autograd_conformance.reference.autograd.gradients as gradients
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy


def _counted_from_one(grad):
    def grad_counting_from_one(*args, **kwargs):
        try:
            return grad(*args, **kwargs)
        except RuntimeError as error:
            text = re.sub(r"at index (\d+)", lambda found: f"at index {int(found[1]) + 1}",
                          str(error))
            raise RuntimeError(text) from None
    return grad_counting_from_one


_reference.replace(gradients, "grad", _counted_from_one)
