"""Print the README's conformance table (behaviours passed / total per level, per engine) from the
JSON results of conformance runs, read as the dashboard reads them (reports/dashboard.py).

    python -m tools.dashboard                      # runs every engine, writes the JSON files
    python -m tools.conformance_table reports/torch.json reports/mygrad.json ...
"""

from __future__ import annotations

import sys
from pathlib import Path

from autograd_conformance.harness.catalog import LEVELS
from autograd_conformance.reports.dashboard import EngineResult, load_results


def rows(engines: list[EngineResult]) -> list[str]:
    lines = ["| engine | version | " + " | ".join(LEVELS) + " | skipped |",
             "| --- | --- | " + " | ".join("---:" for _ in LEVELS) + " | ---: |"]
    for engine in engines:
        levels = [f"{passed} / {total}" for passed, total in map(engine.by_level, LEVELS)]
        lines.append(f"| {engine.name} | {engine.version} | " + " | ".join(levels)
                     + f" | {engine.skipped} |")
    return lines


if __name__ == "__main__":
    print("\n".join(rows(load_results([Path(path) for path in sys.argv[1:]]))))
