"""autograd-conformance: checks whether an autograd engine behaves like PyTorch autograd.

Everything installs under this one package, so that no generic top-level name lands in
site-packages:

- `autograd_conformance.harness`: the library the suites are written with (engines, catalog,
  random programs, oracles, scripts);
- `autograd_conformance.runner`: the pytest side of a conformance run (engines as parameters,
  baseline, time limits, watchdog), started by the entry point `pytest_plugin.py`;
- `autograd_conformance.adapters`: the bundled adapters;
- `autograd_conformance.suites` (the top-level folder suites/): the conformance suites and
  `catalog.toml`;
- `autograd_conformance.reference` (reference/): the reference engine;
- `autograd_conformance.reports` (reports/): the HTML report, the JSON results and the dashboard.

`autograd-conformance` (or `python -m autograd_conformance`) runs the suites from any directory.

PYTEST_DONT_REWRITE: the command imports this package before it starts pytest, which would
otherwise warn that the package of a plugin was imported before it could rewrite its asserts (this
module has none).
"""

__version__ = "0.1.0"
