"""torch, declaring a capability the contract does not define: a typo the harness must report."""

from autograd_conformance.adapters.torch_adapter import __getattr__, to_numpy  # noqa: F401 - the torch namespace

capabilities = frozenset({"core", "hookz"})
