"""What known gaps cost a gate: the same baselined run in `--baseline-mode xfail` (gaps run, and
stop at their first failing example) and `skip` (gaps do not run), side by side.

    python benchmarks/bench_baseline_modes.py [--engine mygrad] [--baseline baselines/mygrad.txt]
                                              [--repeat 3] [-n 2]

Runs alternate between the two modes (xfail, skip, xfail, skip, ...) so that a change in the
machine's load hits both; prints each run's wall time, the medians and their ratio (target: at
most 1.5). Results are written down in benchmarks/RESULTS-suite.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def wall(engine: str, baseline: str, mode: str, workers: int) -> tuple[float, str]:
    command = [sys.executable, "-m", "pytest", "suites", "-q", "-p", "no:cacheprovider",
               "--hypothesis-profile", "ci", "--engine", engine, "--baseline", baseline,
               "--baseline-mode", mode, "-n", str(workers), "--no-report"]
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("AUTOGRAD_ENGINE", "PYTEST_ADDOPTS")}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=environment)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout[-2000:]}")
    return seconds, done.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="mygrad")
    parser.add_argument("--baseline", default="baselines/mygrad.txt")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("-n", "--workers", type=int, default=2)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"xfail": [], "skip": []}
    for _ in range(args.repeat):
        for mode in times:
            seconds, summary = wall(args.engine, args.baseline, mode, args.workers)
            times[mode].append(seconds)
            print(f"{mode:5} {seconds:6.1f} s  {summary}", flush=True)
    xfail, skip = (statistics.median(times[mode]) for mode in ("xfail", "skip"))
    print("\n| mode | median s | runs |\n|---|---:|---|")
    for mode, runs in times.items():
        print(f"| `{mode}` | {statistics.median(runs):.1f} | "
              f"{', '.join(f'{s:.1f}' for s in runs)} |")
    print(f"\nxfail / skip = {xfail / skip:.2f} ({args.engine}, -n {args.workers}, "
          f"{args.repeat} runs each)")


if __name__ == "__main__":
    main()
