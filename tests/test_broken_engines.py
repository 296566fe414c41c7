"""The suite catches broken engines: every mutant in tests/broken fails the conformance run, with
the tests of each behaviour it breaks among the failures; the base engines pass the same selections;
and every catalog behaviour has at least one mutant (issue 7's kill rate, on the `ci` profile).

Each run is a subprocess (`pytest suites --engine tests.broken:<mutant> --behaviour ID ...`), cheap
because only the tests of the broken behaviours are selected. Run in parallel with
`pytest tests/test_broken_engines.py -n 2`.
"""

from __future__ import annotations

import importlib.util

import pytest

from autograd_conformance.harness.catalog import load_catalog
from autograd_conformance.harness.counts import COUNTS
from autograd_conformance.harness.ops import GRADIENT_BEHAVIOURS
from tests.broken import mutants
from tests.support.run import ROOT, run_suites
from tests.support.warm import clean_environment, run_python

BASE_ENGINES = ["torch", "reference"]
MUTANTS = mutants()


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_mutant_is_killed(mutant):
    behaviours = MUTANTS[mutant].behaviours
    run = run_suites(MUTANTS[mutant].spec, behaviours, stop_first=len(behaviours) == 1)
    assert run.returncode == 1, (
        f"{mutant} (breaks {', '.join(behaviours)}) was not killed: exit {run.returncode}\n"
        f"{run.tail()}")
    assert all(record["when"] == "call" for record in run.failed), (
        f"{mutant}: a test errored outside its body (setup), not a conformance failure:\n"
        f"{run.tail()}")
    missed = [behaviour for behaviour in behaviours if not run.failed_for(behaviour)]
    assert not missed, (
        f"{mutant}: no failing test checks {', '.join(missed)}; failures: "
        f"{[record['nodeid'] for record in run.failed]}\n{run.tail()}")


# The mutants whose bug is in one op's forward pass or vector-Jacobian product.
OP_CHAPTERS = ("tests.broken.op_grads", "tests.broken.values")
OP_MUTANTS = sorted(name for name, mutant in MUTANTS.items()
                    if mutant.install.__module__ in OP_CHAPTERS)


@pytest.mark.parametrize("mutant", OP_MUTANTS)
def test_an_op_mutant_is_killed_with_the_broken_op_set_aside(mutant):
    """In a run as users make it, an op that fails its own verdict is set aside and judged by
    its gradient tests alone (OP-*, autograd_conformance/runner/op_verdicts.py): the mutant must
    still fail the run, there or in the behaviours it breaks."""
    selection = tuple(MUTANTS[mutant].behaviours) + tuple(GRADIENT_BEHAVIOURS)
    run = run_suites(MUTANTS[mutant].spec, selection, set_aside=True)
    assert run.returncode == 1, f"{mutant} was not killed with set-aside on:\n{run.tail()}"


@pytest.mark.parametrize("engine", BASE_ENGINES)
def test_base_engine_passes_the_mutant_selections(engine):
    """The control: what kills the mutants is the mutation, not the selection."""
    if engine == "reference" and importlib.util.find_spec("autograd_conformance.reference") is None:
        pytest.skip("the reference engine is not importable")
    catalog = load_catalog().behaviours
    behaviours = sorted({id_ for mutant in MUTANTS.values() if mutant.base == engine
                         for id_ in mutant.behaviours if id_ in catalog})
    if not behaviours:
        pytest.skip(f"no mutant is built on {engine}")
    run = run_suites(engine, behaviours, stop_first=False, extra=["--maxfail", "5"])
    assert run.returncode == 0, f"{engine} fails its mutants' selections:\n{run.tail()}"


def test_every_catalog_behaviour_has_a_mutant():
    broken = {id_ for mutant in MUTANTS.values() for id_ in mutant.behaviours}
    missing = [id_ for id_ in load_catalog().behaviours if id_ not in broken]
    assert not missing, f"catalog behaviours without a broken engine in broken: {missing}"


def test_every_count_has_a_mutant_that_only_its_corner_shows():
    """Issue 28: for each count a test draws (autograd_conformance/harness/counts.py), a broken
    engine that is right below the count's corner (two hooks, two passes, one save) and wrong at
    it, so that the reach test's corners are shown to matter; test_mutant_is_killed kills each."""
    cornered = {mutant.corner for mutant in MUTANTS.values() if mutant.corner is not None}
    missing = [count.what for count in COUNTS if count not in cornered]
    assert not missing, f"counts without a corner mutant: {missing}"


def test_mutants_name_only_catalog_behaviours():
    catalog = load_catalog().behaviours
    unknown = {name: [id_ for id_ in mutant.behaviours if id_ not in catalog]
               for name, mutant in MUTANTS.items()}
    assert not {name: ids for name, ids in unknown.items() if ids}


def test_each_mutant_sits_in_the_chapter_of_its_first_behaviour():
    """So that a reader finds a behaviour's mutants next to each other, in one module per chapter."""
    catalog = load_catalog().behaviours
    misplaced = {name: mutant.install.__module__ for name, mutant in MUTANTS.items()
                 if mutant.install.__module__ != f"tests.broken.{catalog[mutant.behaviours[0]].area}"}
    assert not misplaced, misplaced


def test_a_mutant_loads_as_an_engine_with_its_bug_installed_only_then():
    """`--engine tests.broken:<mutant>` is the mutant's adapter; reading the registry installs
    nothing (the process still has torch's own backward)."""
    probe = ("import torch\n"
             "from tests.broken import mutants\n"
             "backward = torch.Tensor.backward\n"
             "mutants()\n"
             "assert torch.Tensor.backward is backward, 'reading the registry patched torch'\n"
             "from autograd_conformance.harness.engines import load_engine\n"
             "engine = load_engine('tests.broken:torch_second_backward_allowed')\n"
             "assert engine.name == 'torch_second_backward_allowed', engine.name\n"
             "assert torch.Tensor.backward is not backward, 'loading the mutant installed nothing'\n")
    run = run_python(["-c", probe], cwd=ROOT, env=clean_environment())
    assert run.returncode == 0, run.stdout + run.stderr
