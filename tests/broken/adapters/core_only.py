"""torch, declaring only the core capability: tests needing more must be skipped, naming it."""

from autograd_conformance.adapters.torch_adapter import __getattr__, to_numpy  # noqa: F401 - the torch namespace

name = "core-only"
capabilities = frozenset({"core", "float64"})
