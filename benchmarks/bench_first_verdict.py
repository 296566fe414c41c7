#!/usr/bin/env python
"""A young engine's first verdict: the `explore` run at `--level extended` of an engine with many
gaps (tests/broken/adapters/ten_broken_ops.py: ten ops whose backward is off by half), against
the same run on torch, in turns, in this checkout (issue 33: within 90 s on 2 cores, with under
300 lines of terminal output).

    python benchmarks/bench_first_verdict.py [--rounds 3] [-n 2] [--no-set-aside]

Prints each run's wall seconds, its lines of terminal output and pytest's summary line, then the
medians and the ratio of the medians (broken engine / torch).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINES = {"torch": "torch", "ten-broken-ops": "tests.broken.adapters.ten_broken_ops"}


def run(engine: str, workers: int, extra: list[str]) -> tuple[float, int, str]:
    """Wall seconds, lines printed, and pytest's last line, of one first-verdict run."""
    command = [sys.executable, "-m", "pytest", "--engine", engine, "--level", "extended",
               "--hypothesis-profile", "explore", "-n", str(workers), "--no-report",
               "-p", "no:cacheprovider", *extra]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    lines = (done.stdout + done.stderr).splitlines()
    summary = (done.stdout.strip().splitlines() or [""])[-1].strip("= ")
    return seconds, len(lines), summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("-n", type=int, default=2, dest="workers")
    parser.add_argument("--no-set-aside", action="store_true")
    args = parser.parse_args()
    extra = ["--no-set-aside"] if args.no_set_aside else []
    times: dict[str, list[float]] = {name: [] for name in ENGINES}
    for round_ in range(1, args.rounds + 1):
        for name, spec in ENGINES.items():
            seconds, lines, summary = run(spec, args.workers, extra)
            times[name].append(seconds)
            print(f"round {round_} {name}: {seconds:.1f} s, {lines} lines: {summary}", flush=True)
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, median in medians.items():
        print(f"median {name}: {median:.1f} s")
    print(f"ratio of medians (ten-broken-ops / torch): "
          f"{medians['ten-broken-ops'] / medians['torch']:.2f}")


if __name__ == "__main__":
    main()
