"""docs/promises.md stays true to the catalog.

The page maps each of PyTorch's 195 documented autograd promises to the behaviours that pin it.
A map like that rots quietly: a behaviour is renamed, a row is dropped, a status changes without
the summary line following. These tests parse its table and check it against suites/catalog.toml,
so the page cannot claim a coverage the catalog does not have.
"""

import re
from pathlib import Path

import pytest

from autograd_conformance.harness.catalog import load_catalog

PAGE = Path(__file__).parents[1] / "docs" / "promises.md"
PROMISES = 195
COVERED_AT_LEAST = 185  # the bar the issue set for covered promises
STATUSES = ("covered", "partial", "left out")
SOURCE_TAGS = {"N", "A", "I", "T", "TD", "GM", "F", "X", "G", "AM", "FN", "FW", "GC", "AG",
               "MODL", "OPTM", "SGD", "TA"}
SUMMARY = re.compile(r"^(\d+) covered, (\d+) partial, (\d+) left out of (\d+)$", re.M)


def _rows():
    """(number, source tags, behaviour IDs, status text) for each numbered row of the map."""
    text = PAGE.read_text()
    start = text.index("| # | promise | source | behaviours | status |")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not cells[0]:  # a section heading such as | | **GRAPH** | | | |
            continue
        assert len(cells) == 5, f"row {cells[0]} has {len(cells)} cells, not 5"
        number, _promise, source, behaviours, status = cells
        rows.append((int(number), [tag.strip() for tag in source.split(",")],
                     re.findall(r"[A-Z]+-\d+", behaviours), status))
    return rows


@pytest.fixture(scope="module")
def rows():
    return _rows()


def _kind(status):
    return next((kind for kind in STATUSES if status.startswith(kind)), None)


def test_every_promise_has_one_row_in_order(rows):
    assert [number for number, *_ in rows] == list(range(1, PROMISES + 1))


def test_every_source_tag_is_in_the_legend(rows):
    unknown = {(number, tag) for number, tags, _, _ in rows for tag in tags
               if tag not in SOURCE_TAGS}
    assert not unknown, f"source tags not in the legend: {sorted(unknown)}"


def test_every_behaviour_named_is_in_the_catalog(rows):
    catalog = load_catalog().behaviours
    unknown = [(number, id_) for number, _, ids, _ in rows for id_ in ids if id_ not in catalog]
    assert not unknown, f"behaviours not in suites/catalog.toml: {unknown}"


def test_every_status_is_known(rows):
    odd = [(number, status) for number, _, _, status in rows if _kind(status) is None]
    assert not odd, f"statuses not among {STATUSES}: {odd}"


def test_every_covered_row_names_a_behaviour(rows):
    bare = [number for number, _, ids, status in rows if _kind(status) == "covered" and not ids]
    assert not bare, f"covered rows naming no behaviour: {bare}"


def test_every_left_out_row_links_to_coverage_md(rows):
    unlinked = [number for number, _, _, status in rows
                if _kind(status) == "left out" and "](coverage.md)" not in status]
    assert not unlinked, f"left-out rows without a link to coverage.md: {unlinked}"


def test_summary_line_matches_the_table(rows):
    found = SUMMARY.findall(PAGE.read_text())
    assert len(found) == 1, f"expected one summary line, found {len(found)}"
    covered, partial, left_out, total = map(int, found[0])
    counted = [_kind(status) for *_, status in rows]
    assert (covered, partial, left_out, total) == (
        counted.count("covered"), counted.count("partial"), counted.count("left out"), len(rows))


def test_coverage_meets_the_bar(rows):
    covered = sum(_kind(status) == "covered" for *_, status in rows)
    assert covered >= COVERED_AT_LEAST, f"{covered} covered, below {COVERED_AT_LEAST}"
