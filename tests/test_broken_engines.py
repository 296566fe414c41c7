"""The suite catches broken engines: every mutant in broken fails the conformance run, with
the tests of each behaviour it breaks among the failures; the base engines pass the same selections;
and every catalog behaviour has at least one mutant (issue 7's kill rate, on the `ci` profile).

Each run is a subprocess (`pytest suites --engine broken.<mutant> --behaviour ID ...`), cheap
because only the tests of the broken behaviours are selected. Run in parallel with
`pytest tests/test_broken_engines.py -n 2`.
"""

from __future__ import annotations

import importlib.util

import pytest

from autograd_conformance.harness.catalog import load_catalog
from broken import MUTANTS, spec
from broken.run import run_suites

BASE_ENGINES = ["torch", "reference"]


def _base_of(mutant: str) -> str:
    return mutant.split("_", 1)[0] if mutant.startswith(("torch_", "reference_")) else "torch"


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_mutant_is_killed(mutant):
    behaviours = MUTANTS[mutant]
    run = run_suites(spec(mutant), behaviours, stop_first=len(behaviours) == 1)
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


@pytest.mark.parametrize("engine", BASE_ENGINES)
def test_base_engine_passes_the_mutant_selections(engine):
    """The control: what kills the mutants is the mutation, not the selection."""
    if engine == "reference" and importlib.util.find_spec("autograd_conformance.reference") is None:
        pytest.skip("the reference engine is not importable")
    catalog = load_catalog().behaviours
    behaviours = sorted({id_ for name, ids in MUTANTS.items() if _base_of(name) == engine
                         for id_ in ids if id_ in catalog})
    if not behaviours:
        pytest.skip(f"no mutant is built on {engine}")
    run = run_suites(engine, behaviours, stop_first=False, extra=["--maxfail", "5"])
    assert run.returncode == 0, f"{engine} fails its mutants' selections:\n{run.tail()}"


def test_every_catalog_behaviour_has_a_mutant():
    broken = {id_ for ids in MUTANTS.values() for id_ in ids}
    missing = [id_ for id_ in load_catalog().behaviours if id_ not in broken]
    assert not missing, f"catalog behaviours without a broken engine in broken: {missing}"


def test_mutants_name_only_catalog_behaviours():
    catalog = load_catalog().behaviours
    unknown = {name: [id_ for id_ in ids if id_ not in catalog] for name, ids in MUTANTS.items()}
    assert not {name: ids for name, ids in unknown.items() if ids}


def test_every_mutant_module_is_registered():
    """Every module of broken/ but its machinery (run, reproducers, the _private helpers) is a
    registered mutant, and every registered mutant has its module."""
    from pathlib import Path

    import broken
    modules = {path.stem for path in Path(broken.__file__).parent.glob("*.py")
               if not path.stem.startswith("_") and path.stem not in ("run", "reproducers")}
    assert modules == set(MUTANTS), (
        f"unregistered: {sorted(modules - set(MUTANTS))}; "
        f"missing modules: {sorted(set(MUTANTS) - modules)}")
