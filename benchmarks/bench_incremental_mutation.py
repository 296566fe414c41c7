#!/usr/bin/env python
"""Incremental mutation runs after a one-line change to one reference op (issue 34: under 5
minutes over all mutants, with the test outcomes a full run stored).

    python benchmarks/bench_incremental_mutation.py [-j 2] [--sample N] [--cache FILE]

Runs of `python -m tools.mutation run`, each on its own copy of one filled cache: the same
checkout unchanged (everything reused), then after each of two one-line edits in
reference/ops/elementwise.py (the same product, operands swapped; reverted afterwards): in
ReluBackward0.backward, and in ExpBackward0.backward, whose op most random programs draw. The
cache is FILE (e.g. .mutation-cache/results.json, which `run --fresh` fills; it is copied, never
changed), or else one a fresh run fills first. Prints each run's wall seconds (the whole command:
collection, control and mutants), the control's seconds and how many tests it ran, and how many
verdicts were reused. Results go to a temporary folder, not to benchmarks/.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EDITED = ROOT / "reference" / "ops" / "elementwise.py"
EDITS = {  # label: (the line as it is, the line edited): each occurs once in EDITED
    "ReluBackward0 edited": ("return (grad * (result > 0),)", "return ((result > 0) * grad,)"),
    "ExpBackward0 edited": ("return (grad * conj(result),)", "return (conj(result) * grad,)"),
}


def run(folder: Path, cache: Path, options: list[str]) -> tuple[float, dict]:
    """Wall seconds of one run, and its results' JSON."""
    command = [sys.executable, "-m", "tools.mutation", "run", *options, "--cache", str(cache),
               "--markdown", str(folder / "results.md"), "--json", str(folder / "results.json")]
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started, json.loads((folder / "results.json").read_text())


def report(label: str, seconds: float, results: dict) -> None:
    print(f"{label:<24} {seconds:7.1f} s  control {results['control_s']:5.1f} s "
          f"({results['control_ran']} tests run)  reused {results['reused']:4d} of "
          f"{results['summary']['total']}  score {results['summary']['score']}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-j", "--jobs", default="2")
    parser.add_argument("--sample", help="a seeded sample of this many mutants (default: all)")
    parser.add_argument("--cache", type=Path, help="a filled cache to start from (copied)")
    args = parser.parse_args()
    options = ["-j", args.jobs, *(["--sample", args.sample] if args.sample else [])]
    source = EDITED.read_text()
    for before, _ in EDITS.values():
        assert source.count(before) == 1, f"{EDITED} changed: pick another one-line edit"
    with tempfile.TemporaryDirectory(prefix="incremental-") as scratch:
        folder = Path(scratch)
        filled, work = folder / "filled.json", folder / "work.json"
        if args.cache:
            shutil.copy(args.cache, filled)
        else:
            report("fresh (fills the cache)", *run(folder, filled, [*options, "--fresh"]))
        shutil.copy(filled, work)
        report("unchanged", *run(folder, work, options))
        for label, (before, after) in EDITS.items():
            shutil.copy(filled, work)
            try:
                EDITED.write_text(source.replace(before, after))
                report(label, *run(folder, work, options))
            finally:
                EDITED.write_text(source)


if __name__ == "__main__":
    main()
