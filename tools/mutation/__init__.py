"""Mutation testing of the reference engine: do the suites notice a wrong gradient nobody wrote?

The broken engines in tests/broken are bugs someone thought of. This tool generates them: small
AST changes at one site each (`operators`: a flipped sign, a dropped term, swapped operands, a
missing transpose or broadcast reduction, a float32 round trip, an accumulation that overwrites,
..., and in the plumbing's loops an iteration reversed, cut short, swapped, deduplicated, a pack
made once per tensor: `targets._iterations` judges which of these each loop can show) in the
reference engine's backward formulas (reference/ops) and gradient plumbing (graph.py,
walk.py, autograd/gradients.py, forward mode, hooks: `targets`). Each mutant runs the suites in a
process of its own, forked from one pytest session that collected them once (`runner.Child`),
where it replaces the one mutated function of the reference engine (`mutants.install`):
reference/ on disk is never edited and no mutant reaches another run. The session tests the
engine `tools.mutation.engine`, the reference engine under one name for the control and every
mutant.

    python -m tools.mutation list [--ids]          # the mutants, counted per operator and file
    python -m tools.mutation show ID ...           # what a mutant changes
    python -m tools.mutation run [-j 2] [--sample N] [--budget MINUTES] [--fresh] [ID ...]

`run` first runs the unmutated engine the same way (the control: a suite that fails on it would
count every mutant killed), tracing which lines of reference/ each test runs. A mutant runs only
the tests that executed its site, until the first failure kills it: first those that killed other
mutants of its function, then the quickest (`runner.Killers`); a mutant whose site no test
executes is `uncovered`, a survivor that need not run (`runner.covering_tests`). Results go to
benchmarks/RESULTS-mutation.md and benchmarks/mutation.json (`results`). Mutants listed with a
reason in tools/mutation/equivalent.txt are equivalent: they leave the score's denominator.

Runs are incremental (`cache`): what each test did in each run, the control's and every
mutant's, is stored in .mutation-cache/results.json with a fingerprint of the run (the mutant and
its function), the test (its module), the reference functions that test executed (`executed`
imports the engine instrumented to record them, test by test) and the harness; a later run reuses
every stored test outcome whose fingerprint has not changed. So after a one-line change to an op,
the control runs again only the tests that executed that op, and a mutant runs again only if the
test that killed it executed it (a survivor: only its covering tests that executed it); a
mutant listed as equivalent runs again only when its own function changed. `run --fresh` reuses
nothing.
"""
