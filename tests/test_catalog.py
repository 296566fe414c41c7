"""The catalog and the suites agree: every behaviour has a test, every test names known behaviours."""

import importlib
import inspect
import re
from pathlib import Path

import pytest

from autograd_conformance import suites
from autograd_conformance.harness.catalog import LEVELS, load_catalog

SUITES = sorted(suites.SUITES_DIR.glob("test_*.py"))
DOCS = Path(__file__).parents[1] / "docs"
PYTORCH_TESTS = "https://github.com/pytorch/pytorch/blob/main/test/"


def _suite_tests():
    """(test name, behaviour IDs) for every test function or test class in the suites."""
    for path in SUITES:
        module = importlib.import_module(f"autograd_conformance.suites.{path.stem}")
        for name, value in vars(module).items():
            if name.startswith(("test_", "Test")) and (inspect.isfunction(value)
                                                       or inspect.isclass(value)):
                marks = getattr(value, "pytestmark", [])
                ids = [id_ for mark in marks if mark.name == "behaviour" for id_ in mark.args]
                yield f"{path.name}::{name}", ids


def test_every_test_names_known_behaviours():
    catalog = load_catalog().behaviours
    for test, ids in _suite_tests():
        assert ids, f"{test} names no behaviour (@pytest.mark.behaviour)"
        unknown = [id_ for id_ in ids if id_ not in catalog]
        assert not unknown, f"{test} names unknown behaviour IDs {unknown}"


def test_every_behaviour_has_a_test():
    """By the markers the broken-engine runs select their suite modules with, too."""
    tested = {id_ for _, ids in _suite_tests() for id_ in ids}
    assert tested == set(suites.tests_by_behaviour())
    untested = [id_ for id_ in load_catalog().behaviours if id_ not in tested]
    assert not untested, f"catalog behaviours without a test: {untested}"


@pytest.mark.parametrize("behaviour", load_catalog().behaviours.values(), ids=lambda b: b.id)
def test_entry_is_complete(behaviour):
    assert behaviour.level in LEVELS
    assert behaviour.rule.strip() and len(behaviour.rule.splitlines()) == 1
    parts = behaviour.source.split("; ")
    for source, after in zip(parts, parts[1:] + [""]):
        assert source.startswith(("https://docs.pytorch.org/", "seeds/", PYTORCH_TESTS, "test_")), source
        if source.startswith(PYTORCH_TESTS):  # a PyTorch test file, then the test that pins the rule
            assert after.startswith("test_"), f"{source} is not followed by a test name"
    for source, before in zip(parts, [""] + parts):
        if source.startswith("test_"):
            assert before.startswith(PYTORCH_TESTS), f"{source} does not follow a PyTorch test file"


def test_the_catalog_page_is_up_to_date():
    """docs/catalog.md is what tools/catalog_page.py makes of suites/catalog.toml today."""
    from tools.catalog_page import PAGE, render
    assert PAGE.read_text(encoding="utf-8") == render(), (
        "docs/catalog.md is stale: run python -m tools.catalog_page")


def test_the_contract_lists_every_error_the_suites_expect():
    """docs/adapter-contract.md's Errors table names every behaviour whose test expects an error
    (`.raises(`), at the catalog's level; the behaviours that check an error's text are the
    MSG-* ones and the strict text checks the page names beside the table."""
    page = (DOCS / "adapter-contract.md").read_text(encoding="utf-8")
    table = page.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    rows = {id_: line.split("|")[2].strip() for line in table.splitlines()
            if line.startswith("| ") for id_ in re.findall(r"\b[A-Z]+-\d+\b", line.split("|")[1])}
    catalog = load_catalog().behaviours
    assert {id_: level for id_, level in rows.items() if catalog[id_].level != level} == {}
    text_checks = {"FN-20", "VIEW-7", "VIEW-14"}
    expecting = set()
    for path in SUITES:
        module = importlib.import_module(f"autograd_conformance.suites.{path.stem}")
        for name, value in vars(module).items():
            if name.startswith("test_") and inspect.isfunction(value) \
                    and ".raises(" in inspect.getsource(value):
                expecting |= {id_ for mark in getattr(value, "pytestmark", [])
                              if mark.name == "behaviour" for id_ in mark.args}
    unlisted = sorted(id_ for id_ in expecting - set(rows) - text_checks
                      if not id_.startswith("MSG-"))
    assert not unlisted, f"behaviours whose tests expect an error, missing from the table: {unlisted}"


FACT_SHEET_ONLY = "## Fact-sheet entries the catalog does not hold"


def test_the_coverage_page_places_every_behaviour():
    """docs/coverage.md maps PyTorch's autograd pages to catalog IDs: every ID it names exists,
    and every catalog behaviour is placed somewhere on it; its last section lists the fact-sheet
    entries the catalog does not hold, so none of them may be a catalog ID."""
    page = (DOCS / "coverage.md").read_text(encoding="utf-8")
    placed, _, fact_sheet_only = page.partition(FACT_SHEET_ONLY)
    named = set(re.findall(r"\b[A-Z]+-\d+\b", placed))
    catalog = set(load_catalog().behaviours)
    assert fact_sheet_only, f"docs/coverage.md lost its section {FACT_SHEET_ONLY!r}"
    assert sorted(named - catalog) == [], "IDs on docs/coverage.md that the catalog lacks"
    assert sorted(catalog - named) == [], "catalog behaviours docs/coverage.md does not place"
    left_out = {row.split("|")[1] for row in fact_sheet_only.splitlines() if row.startswith("| ")}
    in_catalog = {i for entry in left_out for i in re.findall(r"\b[A-Z]+-\d+\b", entry)} & catalog
    assert sorted(in_catalog) == [], "fact-sheet entries listed as not in the catalog that are in it"


def test_the_reference_engine_names_only_catalog_behaviours():
    """A behaviour ID in the reference engine's code says where the rule is made to hold: an ID
    the catalog does not have (a stale one) would send a reader nowhere."""
    from tools.catalog_page import reference_by_behaviour
    unknown = {id_: places for id_, places in reference_by_behaviour().items()
               if id_ not in load_catalog().behaviours}
    assert not unknown, f"reference/ names behaviour IDs the catalog lacks: {unknown}"


def test_each_recorded_deviation_of_torch_still_shows_on_torch():
    """suites/deviations.toml: every script runs to its end on the installed torch (its last lines
    assert what torch 2.13 does instead of what it documents), and names a catalog behaviour.
    When torch stops departing, its script fails here, and the rule's carve-out can go."""
    from autograd_conformance.harness.catalog import load_deviations
    deviations = load_deviations()
    assert deviations and set(deviations) <= set(load_catalog().behaviours)
    for behaviour, deviation in deviations.items():
        exec(compile(deviation.script, f"<deviation of {behaviour}>", "exec"), {})


def test_the_deviations_page_is_up_to_date():
    from tools.catalog_page import DEVIATIONS_PAGE, render_deviations
    assert DEVIATIONS_PAGE.read_text(encoding="utf-8") == render_deviations(), (
        "docs/torch-deviations.md is stale: run python -m tools.catalog_page")
