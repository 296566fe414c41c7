"""Write docs/catalog.md, the readable catalog page, from suites/catalog.toml: each behaviour's rule
and source, the tests that check it (their `@behaviour` markers) and the reference code that makes
it true (the functions and classes of reference/ that name its ID), so that a reader goes from a
rule to its tests and to an implementation of it.

Also docs/torch-deviations.md, from suites/deviations.toml: where torch 2.13 departs from its
documentation, with the script that shows it.

Run `python -m tools.catalog_page` after editing the catalog, the deviations, a suite's markers or
a reference docstring; tests/test_catalog.py fails while a page is out of date.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections import defaultdict
from pathlib import Path

from autograd_conformance.harness.catalog import LEVELS, load_catalog, load_deviations
from autograd_conformance.suites import tests_by_behaviour

ROOT = Path(__file__).resolve().parent.parent

PAGE = ROOT / "docs" / "catalog.md"
DEVIATIONS_PAGE = ROOT / "docs" / "torch-deviations.md"
ID = re.compile(r"\b[A-Z]+-\d+\b")


def reference_by_behaviour() -> dict[str, list[tuple[str, str]]]:
    """ID -> (reference file, name) of the innermost function or class of reference/ whose text
    (docstring, comments or code) names the ID; the module itself where it is named outside any."""
    found = defaultdict(list)
    for path in sorted((ROOT / "reference").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        owner = {}   # line number -> innermost enclosing definition's name
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                for line in range(node.lineno, node.end_lineno + 1):
                    if line not in owner or owner[line][0] < node.lineno:
                        owner[line] = (node.lineno, node.name)
        relative = path.relative_to(ROOT).as_posix()
        for number, line in enumerate(text.splitlines(), start=1):
            for behaviour in ID.findall(line):
                place = (relative, owner.get(number, (0, "(module)"))[1])
                if place not in found[behaviour]:
                    found[behaviour].append(place)
    return found


def _links(places) -> str:
    """Links from docs/ to (file under suites/ or the checkout, name) places."""
    return "<br>".join(f"[{name}](../{path if '/' in path else 'suites/' + path})"
                       for path, name in places) or "none"


def _source_links(source: str) -> str:
    links = []
    for part in source.split("; "):
        if part.startswith("http"):
            links.append(f"[{part.rsplit('/', 1)[-1] or part}]({part})")
        else:
            links.append(f"`{part}`")
    return ", ".join(links)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render() -> str:
    catalog = load_catalog()
    tests, reference = tests_by_behaviour(), reference_by_behaviour()
    counts = {level: sum(b.level == level for b in catalog.behaviours.values()) for level in LEVELS}
    lines = [
        "# The behaviour catalog",
        "",
        "Generated from `suites/catalog.toml` by `python -m tools.catalog_page`; do not edit.",
        f"{len(catalog.behaviours)} behaviours: "
        + ", ".join(f"{counts[level]} {level}" for level in LEVELS) + ".",
        "Sources named `seeds/...` are the seed blog posts the project started from (see README).",
        "Each rule links to the tests that check it and to the reference engine's code that makes it",
        "true (the definitions in `reference/` whose text names the rule's ID).",
        "",
    ]
    for area, title in catalog.areas.items():
        rows = [b for b in catalog.behaviours.values() if b.area == area]
        if not rows:
            continue
        lines += [f"## {title}", "", "| ID | level | rule | source | tests | reference code |",
                  "| --- | --- | --- | --- | --- | --- |"]
        lines += [f"| {b.id} | {b.level} | {_cell(b.rule)} | {_source_links(b.source)} "
                  f"| {_links(tests.get(b.id, []))} | {_links(reference.get(b.id, []))} |"
                  for b in rows]
        lines.append("")
    return "\n".join(lines)


def render_deviations() -> str:
    """docs/torch-deviations.md: each departure of torch 2.13 from its documentation, with the rule
    that keeps the promise and the script that shows the departure."""
    catalog = load_catalog().behaviours
    lines = [
        "# Where torch 2.13 departs from what it documents",
        "",
        "Generated from `suites/deviations.toml` by `python -m tools.catalog_page`; do not edit.",
        "The catalog's rule keeps the promise; its test steps around torch's departure, so that",
        "torch passes the suite and no engine fails for doing what the documentation says. Each",
        "script runs to its end on torch 2.13.0 (its last lines assert what torch does;",
        "tests/test_catalog.py runs them): findings for engine authors and for PyTorch alike.",
        "",
    ]
    for deviation in load_deviations().values():
        lines += [f"## {deviation.behaviour}: {deviation.title}", "",
                  f"Rule {deviation.behaviour}: {catalog[deviation.behaviour].rule}", "",
                  textwrap.fill(deviation.what, width=100), "",
                  "```python", deviation.script.strip(), "```", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    for page, text in ((PAGE, render()), (DEVIATIONS_PAGE, render_deviations())):
        page.write_text(text, encoding="utf-8")
        print(f"wrote {page.relative_to(ROOT)}")
