"""Bundled adapters: each maps one engine onto the torch-like contract (docs/adapter-contract.md)."""
