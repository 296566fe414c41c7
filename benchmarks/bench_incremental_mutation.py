#!/usr/bin/env python
"""An incremental mutation run after a one-line change to one reference op (issue 34: under 5
minutes over all mutants, with a cache from a full run).

    python benchmarks/bench_incremental_mutation.py [-j 2] [--sample N] [--keep-cache]

Three runs of `python -m tools.mutation run` on one cache (in a temporary folder, or
.mutation-cache/bench.json with --keep-cache, which then skips the first run when it exists): a
fresh one that fills it, the same again unchanged (everything reused), then one after a one-line
edit of ReluBackward0.backward in reference/ops/elementwise.py (the same product, operands
swapped), which is reverted afterwards. Prints each run's wall seconds (the whole command:
collection, control and mutants) and how many verdicts it reused. Results go to the temporary
folder, not to benchmarks/.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EDITED = ROOT / "reference" / "ops" / "elementwise.py"
BEFORE, AFTER = "return (grad * (result > 0),)", "return ((result > 0) * grad,)"


def run(folder: Path, cache: Path, options: list[str]) -> tuple[float, dict]:
    """Wall seconds of one run, and its results' JSON."""
    command = [sys.executable, "-m", "tools.mutation", "run", *options, "--cache", str(cache),
               "--markdown", str(folder / "results.md"), "--json", str(folder / "results.json")]
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started, json.loads((folder / "results.json").read_text())


def report(label: str, seconds: float, results: dict) -> None:
    print(f"{label:<28} {seconds:7.1f} s  control {results['control_s']:5.1f} s  "
          f"reused {results['reused']:4d} of {results['summary']['total']}  "
          f"score {results['summary']['score']}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-j", "--jobs", default="2")
    parser.add_argument("--sample", help="a seeded sample of this many mutants (default: all)")
    parser.add_argument("--keep-cache", action="store_true")
    args = parser.parse_args()
    options = ["-j", args.jobs, *(["--sample", args.sample] if args.sample else [])]
    source = EDITED.read_text()
    assert source.count(BEFORE) == 1, f"{EDITED} changed: pick another one-line edit"
    with tempfile.TemporaryDirectory(prefix="incremental-") as scratch:
        folder = Path(scratch)
        cache = ROOT / ".mutation-cache" / "bench.json" if args.keep_cache else folder / "c.json"
        if not cache.exists():
            report("fresh (fills the cache)", *run(folder, cache, [*options, "--fresh"]))
        report("unchanged", *run(folder, cache, options))
        try:
            EDITED.write_text(source.replace(BEFORE, AFTER))
            report("ReluBackward0 edited", *run(folder, cache, options))
        finally:
            EDITED.write_text(source)


if __name__ == "__main__":
    main()
