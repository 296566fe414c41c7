#!/usr/bin/env python
"""The bundled gates (mygrad and tinygrad, each with its baseline) on an idle machine and with two
busy-loop processes hogging the cores, in turns: each run must exit 0, whatever the load, and the
report gives each gate's times and the ratio of the medians, loaded to idle.

    python benchmarks/bench_gates_under_load.py [--rounds 3] [--hogs 2]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GATES = {
    "mygrad": ["--engine", "mygrad", "--baseline", "baselines/mygrad.txt"],
    "tinygrad": ["--engine", "tinygrad", "--baseline", "baselines/tinygrad.txt"],
}


def spin() -> None:
    while True:
        pass


def gate(engine: str) -> tuple[float, int, str]:
    """Wall seconds, exit status and pytest's summary line of one gated run."""
    command = [sys.executable, "-m", "pytest", "-n", "2", "--hypothesis-profile", "ci", "-q",
               "-p", "no:cacheprovider", "--no-report", *GATES[engine]]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "DEV": "PYTHON", "CACHELEVEL": "0"})
    summary = (done.stdout.strip().splitlines() or [""])[-1]
    return time.perf_counter() - started, done.returncode, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hogs", type=int, default=2, help="busy-loop processes while loaded")
    args = parser.parse_args()
    times = {(engine, load): [] for engine in GATES for load in ("idle", "loaded")}
    failures = []
    for round_ in range(1, args.rounds + 1):
        for load in ("idle", "loaded"):
            hogs = [multiprocessing.Process(target=spin, daemon=True)
                    for _ in range(args.hogs if load == "loaded" else 0)]
            for hog in hogs:
                hog.start()
            try:
                for engine in GATES:
                    seconds, status, summary = gate(engine)
                    times[engine, load].append(seconds)
                    print(f"round {round_}, {load}: {engine} exit {status} in {seconds:.1f} s "
                          f"({summary})", flush=True)
                    if status != 0:
                        failures.append(f"{engine} ({load}, round {round_}): exit {status}")
            finally:
                for hog in hogs:
                    hog.kill()
    print(f"\n| gate | idle runs (s) | loaded runs (s), {args.hogs} busy loops | median loaded / "
          f"idle |\n|---|---|---|---:|")
    for engine in GATES:
        idle, loaded = times[engine, "idle"], times[engine, "loaded"]
        print(f"| {engine} | {', '.join(f'{t:.1f}' for t in idle)} | "
              f"{', '.join(f'{t:.1f}' for t in loaded)} | "
              f"{statistics.median(loaded) / statistics.median(idle):.2f} |")
    print("\nevery gate exited 0" if not failures else "\nFAILED: " + "; ".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
