#!/usr/bin/env python
"""Look for false alarms: the conformance suites must be 100% green on torch and on the reference
engine whatever hypothesis draws.

Runs (each a `pytest suites` subprocess, both engines in one run):
  * `ci` once: it is derandomized, so one run is all the examples it will ever draw;
  * `ci-seeded` under seeds 0..N-1: the `ci` settings with derandomize off, so that each
    `--hypothesis-seed` draws a different 50 examples per test (see tools/seeded_profiles.py);
  * `dev-seeded` under seeds 0..N-1: the `dev` profile (60 examples) without the example database.
Every failing test is printed with its seed, profile and the command that reproduces it; the
per-run logs (with hypothesis' falsifying examples and reproducer scripts) go to --logs.

    python -m tools.false_alarms [--seeds 20] [--engines torch,reference] [-n 2] [--jobs 1]
                                   [--profiles ci,ci-seeded,dev-seeded] [--logs DIR]
                                   [--suites suites/test_views.py,...]

`--suites` narrows every run to some suite modules, for a sweep of a new chapter alone.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def command(profile: str, seed: int | None, engines: list[str], workers: int,
            suites: list[str]) -> list[str]:
    args = [sys.executable, "-m", "pytest", *suites, "-q", "-rfE", "-p", "no:cacheprovider",
            "-p", "tools.seeded_profiles", "--hypothesis-profile", profile, "--no-report"]
    for engine in engines:
        args += ["--engine", engine]
    if seed is not None:
        args += ["--hypothesis-seed", str(seed)]
    return args + ["-n", str(workers)]


def run(profile: str, seed: int | None, engines: list[str], workers: int, logs: Path,
        suites: list[str]) -> dict:
    args = command(profile, seed, engines, workers, suites)
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("AUTOGRAD_ENGINE", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")}
    started = time.perf_counter()
    completed = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=environment)
    seconds = time.perf_counter() - started
    output = completed.stdout + completed.stderr
    log = logs / f"{profile}-seed{'none' if seed is None else seed}.log"
    log.write_text(" ".join(args) + "\n\n" + output)
    failures = sorted(set(re.findall(r"^(?:FAILED|ERROR) (\S+)", output, re.MULTILINE)))
    # pytest's last line, "=== 803 passed in 303s ===" or, under -q, the same without the rules
    summary = (re.findall(r"^=* ?(\d+ (?:passed|failed|errors?)\b.* in [\d.]+s.*?)(?: =+)?$",
                          output, re.MULTILINE) or output.strip().splitlines()[-1:])
    return {"profile": profile, "seed": seed, "returncode": completed.returncode,
            "failures": failures, "seconds": round(seconds, 1), "log": str(log),
            "summary": summary[-1] if summary else "", "command": " ".join(args[1:])}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--engines", default="torch,reference")
    parser.add_argument("--profiles", default="ci,ci-seeded,dev-seeded")
    parser.add_argument("-n", "--workers", type=int, default=2, help="pytest-xdist workers per run")
    parser.add_argument("--jobs", type=int, default=1, help="runs at a time")
    parser.add_argument("--logs", default=str(Path(tempfile.gettempdir()) / "false-alarms"),
                        help="folder for the per-run logs (default: a temporary folder)")
    parser.add_argument("--json", help="write the results as JSON to this path")
    parser.add_argument("--suites", default="suites",
                        help="comma-separated suite paths to run (default: every suite)")
    args = parser.parse_args(argv)
    engines = [engine for engine in args.engines.split(",") if engine]
    logs = Path(args.logs)
    logs.mkdir(parents=True, exist_ok=True)
    plan = []
    for profile in args.profiles.split(","):
        seeds = [None] if profile == "ci" else range(args.first_seed,
                                                      args.first_seed + args.seeds)
        plan += [(profile, seed) for seed in seeds]
    results = []
    with ThreadPoolExecutor(args.jobs) as pool:
        suites = [path for path in args.suites.split(",") if path]
        futures = [pool.submit(run, profile, seed, engines, args.workers, logs, suites)
                   for profile, seed in plan]
        for future in futures:
            result = future.result()
            results.append(result)
            status = "ok" if result["returncode"] == 0 else f"exit {result['returncode']}"
            print(f"{result['profile']:<11} seed {str(result['seed']):>4}  {status:<7} "
                  f"{result['seconds']:>7.1f}s  {result['summary']}", flush=True)
            for failure in result["failures"]:
                print(f"    {failure}\n      reproduce: python {result['command']} "
                      f"'{failure}'  (log: {result['log']})", flush=True)
    bad = [result for result in results if result["returncode"] != 0]
    print(f"\n{len(results)} runs on {', '.join(engines)}: {len(results) - len(bad)} green, "
          f"{len(bad)} with failures ({sum(len(r['failures']) for r in bad)} failing tests)")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
