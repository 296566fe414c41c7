"""Write docs/catalog.md, the readable catalog page, from suites/catalog.toml.

Run `python scripts/catalog_page.py` after editing the catalog; tests/test_catalog.py fails while
the page is out of date.
"""

from __future__ import annotations

from pathlib import Path

from autograd_conformance.harness.catalog import LEVELS, load_catalog

ROOT = Path(__file__).resolve().parent.parent

PAGE = ROOT / "docs" / "catalog.md"


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
    counts = {level: sum(b.level == level for b in catalog.behaviours.values()) for level in LEVELS}
    lines = [
        "# The behaviour catalog",
        "",
        "Generated from `suites/catalog.toml` by `python scripts/catalog_page.py`; do not edit.",
        f"{len(catalog.behaviours)} behaviours: "
        + ", ".join(f"{counts[level]} {level}" for level in LEVELS) + ".",
        "Sources named `seeds/...` are the seed blog posts the project started from (see README).",
        "",
    ]
    for area, title in catalog.areas.items():
        rows = [b for b in catalog.behaviours.values() if b.area == area]
        if not rows:
            continue
        lines += [f"## {title}", "", "| ID | level | rule | source |", "| --- | --- | --- | --- |"]
        lines += [f"| {b.id} | {b.level} | {_cell(b.rule)} | {_source_links(b.source)} |"
                  for b in rows]
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    PAGE.write_text(render(), encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
