#!/usr/bin/env python
"""A broken engine's gate on the baseline it wrote, run again and again on a loaded machine: it
must exit 0 every time, since nothing but the engine may flip a gate, and here nothing changes.

The engine is a mutant whose accumulation into .grad races (tests/broken/threads.py): its
thread tests fail or pass by how the threads happen to be scheduled, which is what made such a
gate go red by itself in a trial (issue 32). The script writes the baseline once (idle, with
`--write-baseline`), then runs the gate (`--baseline`) `--runs` times with `--hogs` busy-loop
processes on the cores, and prints each run's exit status, time and pytest's last line, then a
summary that says how many runs exited 0; the output of each run that did not is kept in the work
folder (`gate-N.log`).

    python benchmarks/bench_gate_stability.py [--runs 20] [--hogs 2] [--engine SPEC]
                                              [--suites suites/test_threads.py,...] [--work DIR]
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = "tests.broken:reference_grad_accumulation_races"
SUITES = "suites/test_threads.py,suites/test_accumulation.py"


def spin() -> None:
    while True:
        pass


def pytest(engine: str, suites: list[str], *options: str) -> tuple[float, int, str]:
    """Wall seconds, exit status and the output of one `pytest` run of `suites` on `engine`."""
    command = [sys.executable, "-m", "pytest", *suites, "--engine", engine, "-n", "2",
               "--hypothesis-profile", "ci", "-q", "-rfEX", "-p", "no:cacheprovider",
               "--no-report", *options]
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("AUTOGRAD_ENGINE", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=environment)
    return time.perf_counter() - started, done.returncode, done.stdout + done.stderr


def last_line(output: str) -> str:
    """pytest's summary line ("2 passed, 3 xfailed in 9.8s"), whatever warnings follow it."""
    found = re.findall(r"^=* ?(\d+ (?:passed|failed|xfailed|xpassed|skipped|errors?)\b.* in "
                       r"[\d.]+s.*?)(?: =+)?$", output, re.MULTILINE)
    return found[-1] if found else (output.strip().splitlines() or [""])[-1]


def unstable_tests(output: str) -> int:
    """How many tests the run called unstable (its "unstable: N test(s)" line; older code: 0)."""
    found = re.search(r"unstable: (\d+) test\(s\) both passed and failed", output)
    return int(found.group(1)) if found else 0


def red_tests(output: str) -> list[str]:
    """The tests that turned a run red, as pytest's short summary names them."""
    return re.findall(r"^(?:FAILED|ERROR|XPASS)\S* (\S+)", output, re.MULTILINE)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--hogs", type=int, default=2, help="busy-loop processes during the gates")
    parser.add_argument("--engine", default=ENGINE)
    parser.add_argument("--suites", default=SUITES, help="comma-separated suite modules")
    parser.add_argument("--work", help="folder for the baseline (default: a temporary folder)")
    args = parser.parse_args()
    suites = args.suites.split(",")
    work = Path(args.work or tempfile.mkdtemp(prefix="gate-stability-"))
    work.mkdir(parents=True, exist_ok=True)
    baseline = work / "baseline.txt"
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, commit {commit}, {platform.node()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}; engine {args.engine}; "
          f"suites {', '.join(suites)}", flush=True)

    seconds, status, output = pytest(args.engine, suites, "--write-baseline", str(baseline))
    listed = [line.split()[0] for line in baseline.read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    print(f"baseline written in {seconds:.1f} s (exit {status}, {last_line(output)}): "
          f"{len(listed)} known gaps", flush=True)
    for nodeid in listed:
        print(f"  {nodeid}")
    if not listed:
        print("the engine has no gap in these suites: nothing to gate on")
        return 1

    hogs = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.hogs)]
    for hog in hogs:
        hog.start()
    statuses, times, flips, unstable = [], [], collections.Counter(), []
    try:
        for run in range(1, args.runs + 1):
            seconds, status, output = pytest(args.engine, suites, "--baseline", str(baseline))
            statuses.append(status)
            times.append(seconds)
            unstable.append(unstable_tests(output))
            red = red_tests(output) if status else []
            flips.update(red)
            if status:
                (work / f"gate-{run}.log").write_text(output)
            print(f"gate {run:2d}: exit {status} in {seconds:5.1f} s ({last_line(output)}; "
                  f"{unstable[-1]} unstable)"
                  + "".join(f"\n    red: {nodeid}" for nodeid in red), flush=True)
    finally:
        for hog in hogs:
            hog.kill()
    green = statuses.count(0)
    print(f"\n{green} of {args.runs} gates exited 0 with {args.hogs} busy loops "
          f"(exit statuses {dict(collections.Counter(statuses))}; "
          f"{min(times):.1f} to {max(times):.1f} s, median {sorted(times)[len(times) // 2]:.1f} s; "
          f"{sum(1 for count in unstable if count)} runs called some test unstable)")
    for nodeid, count in flips.most_common():
        print(f"  red {count} times: {nodeid}")
    return 0 if green == args.runs else 1


if __name__ == "__main__":
    sys.exit(main())
