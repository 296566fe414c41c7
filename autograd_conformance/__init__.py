"""autograd-conformance: checks whether an autograd engine behaves like PyTorch autograd.

Everything installs under this one package, so that no generic top-level name (`harness`,
`reference`, `suites`, `adapters`) lands in site-packages. In a checkout the subpackages stay in
their top-level directories; pyproject.toml maps them here:

- `autograd_conformance.harness` (harness/): engines, catalog, random programs, oracles, and the
  pytest plugin, registered through the `pytest11` entry point;
- `autograd_conformance.suites` (suites/): the conformance suites and `catalog.toml`;
- `autograd_conformance.reference` (reference/): the reference engine;
- `autograd_conformance.adapters` (adapters/): the bundled adapters.

`autograd-conformance` (or `python -m autograd_conformance`) runs the suites from any directory.

PYTEST_DONT_REWRITE: the command imports this package before it starts pytest, which would
otherwise warn that the package of a plugin was imported before it could rewrite its asserts (this
module has none).
"""

__version__ = "0.1.0"
