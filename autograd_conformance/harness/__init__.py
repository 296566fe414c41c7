"""The library the suites are written with; it never implements autograd, and never imports the
runner (autograd_conformance/runner, the pytest side).

- `engines`, `contract`: loading an engine through its adapter; the capabilities it may declare;
- `catalog`: the behaviour catalog (suites/catalog.toml);
- `ops`, `program`, `strategies`, `complex_programs`: the op set, random computation programs and
  the hypothesis strategies that draw them;
- `oracles`: gradients that do not trust the engine (analytic float64, algebraic relations) and
  their tolerances;
- `script`, `checks`: a test's steps, run on the engine and kept as the failing example's torch
  script, and the checks the suites share.
"""
