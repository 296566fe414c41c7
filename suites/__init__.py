"""The conformance suites, one module per area, and their catalog (`catalog.toml`).

A package so that the installed suites are importable as `autograd_conformance.suites`
(`pytest --pyargs autograd_conformance.suites`); the plugin parametrizes the tests under this
directory by engine.
"""
