"""Print the README's conformance table (behaviours passed / total per level, per engine) from the
JSON results of conformance runs.

    python -m pytest --hypothesis-profile ci -n 2                                 # torch, reference
    python -m pytest --engine mygrad --hypothesis-profile ci -n 2 --report=reports/mygrad.html
    python scripts/conformance_table.py reports/conformance.json reports/mygrad.json ...
"""

from __future__ import annotations

import json
import sys

LEVELS = ("core", "extended", "strict")


def rows(paths: list[str]) -> list[str]:
    lines = ["| engine | version | core | extended | strict | skipped |",
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    for path in paths:
        results = json.load(open(path, encoding="utf-8"))
        versions = {engine["name"]: engine["version"] for engine in results["run"]["engines"]}
        for name, summary in results["summary"].items():
            levels = [f"{summary['by_level'][level]['passed']} / {summary['by_level'][level]['total']}"
                      for level in LEVELS]
            skipped = summary["behaviour_states"].get("skipped", 0)
            lines.append(f"| {name} | {versions.get(name, '?')} | " + " | ".join(levels)
                         + f" | {skipped} |")
    return lines


if __name__ == "__main__":
    print("\n".join(rows(sys.argv[1:])))
