"""Breaks MOD-11 on the reference engine. eval() (train(False)) also freezes every parameter, as if
evaluation mode were inference without gradients; train() unfreezes them."""

import autograd_conformance.reference.nn as nn
from broken import _reference
from broken._reference import delegate as __getattr__  # noqa: F401 - the rest is reference

name = __name__.rpartition(".")[2]
version = _reference.version
capabilities = _reference.capabilities
to_numpy = _reference.to_numpy

_train = nn.Module.train


def _train_and_set_flags(self, mode=True):
    _train(self, mode)
    for p in self.parameters():
        p.requires_grad_(mode)
    return self


nn.Module.train = _train_and_set_flags
