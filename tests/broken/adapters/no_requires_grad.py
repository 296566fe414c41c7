"""torch whose factories take no `requires_grad=` keyword, as an engine without per-tensor flags
would: the harness must run it (the tests that pass the keyword fail) instead of refusing it."""

import torch

from autograd_conformance.adapters.torch_adapter import __getattr__, to_numpy  # noqa: F401 - the torch namespace

name = "no-flags"


def tensor(data, dtype=None):
    return torch.tensor(data, dtype=dtype)


def zeros(*shape, dtype=None):
    return torch.zeros(*shape, dtype=dtype)


def ones(*shape, dtype=None):
    return torch.ones(*shape, dtype=dtype)
