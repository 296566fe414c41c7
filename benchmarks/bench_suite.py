#!/usr/bin/env python
"""How long the conformance run takes, and where the time goes.

For each engine (default: torch and reference), with the `ci` profile:
  1. wall time of `pytest suites --engine E -n 0` and `-n 2` (median of --repeat runs, run side
     by side: each repeat runs both, alternating);
  2. per suite module: seconds in test bodies and hypothesis examples run (the probe plugin
     tests/support/probe.py counts the calls of each test body), from one `-n 0` run;
  3. where the time goes: one in-process `-n 0` run under cProfile. Each function's own time is
     given to a category by its file: `engine` (the engine's package and adapters/), `generation`
     (hypothesis and autograd_conformance/harness/strategies.py), `oracle`
     (autograd_conformance/harness/oracles.py and the NumPy forward pass Program.evaluate),
     `harness` (the rest of harness/, suites/, conftest), `pytest` (the rest). C functions and
     NumPy have no category of their own: their time goes to the caller's
     (split by caller), except that C code called directly by a test's script steps (the code
     autograd_conformance/harness/script.py compiles as `<step at ...>`: operators on engine
     tensors) counts as `engine`.

    python benchmarks/bench_suite.py [--engines torch,reference] [--repeat 3] [--markdown]

Prints a Markdown report (the figures in benchmarks/RESULTS-suite.md come from it).
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASE = ["-m", "pytest", "suites", "-q", "-p", "no:cacheprovider", "--hypothesis-profile", "ci",
        "--no-report"]


def environment(**extra) -> dict:
    env = {key: value for key, value in os.environ.items()
           if key not in ("AUTOGRAD_ENGINE", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")}
    env.update(extra)
    return env


def wall(engine: str, workers: int, env=None) -> tuple[float, str]:
    args = [sys.executable, *BASE, "--engine", engine, "-n", str(workers)]
    started = time.perf_counter()
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=env or environment())
    seconds = time.perf_counter() - started
    last = (done.stdout.strip().splitlines() or [""])[-1]
    return seconds, last


def per_module(engine: str) -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        probe = Path(scratch) / "probe.json"
        env = environment(BROKEN_PROBE_OUT=str(probe))
        args = [sys.executable, *BASE, "--engine", engine, "-n", "0", "-p", "tests.support.probe"]
        subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=env)
        records = json.loads(probe.read_text()) if probe.exists() else []
    modules = defaultdict(lambda: {"seconds": 0.0, "examples": 0, "tests": 0})
    for record in records:
        module = record["nodeid"].split("::")[0]
        modules[module]["seconds"] += record.get("seconds", 0.0)
        modules[module]["examples"] += record.get("calls", 0)
        modules[module]["tests"] += 1
    return dict(modules)


PROFILE_SCRIPT = """
import cProfile, sys, pytest
profiler = cProfile.Profile()
profiler.enable()
code = pytest.main(sys.argv[2:])
profiler.disable()
profiler.dump_stats(sys.argv[1])
"""


def profile(engine: str) -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        stats_path = Path(scratch) / "run.prof"
        args = [sys.executable, "-c", PROFILE_SCRIPT, str(stats_path), *BASE[2:], "--engine",
                engine, "-n", "0"]
        subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=environment())
        stats = pstats.Stats(str(stats_path)).stats
    return attribute(stats, engine)


def _category(key, engine: str) -> str | None:
    filename, _, function = key
    path = filename.replace(os.sep, "/")
    if filename == "~" or "/numpy/" in path:
        return None
    if path.endswith("autograd_conformance/harness/ops.py") or (path.endswith("autograd_conformance/harness/program.py")
                                           and function == "evaluate"):
        return "oracle"  # the op table's NumPy forward and vjp, and the forward pass
    engine_dirs = ["/adapters/", "/broken/_torch"]
    engine_dirs.append("/reference/" if engine == "reference" else "/torch/")
    if any(directory in path for directory in engine_dirs):
        return "engine"
    if "/hypothesis/" in path or path.endswith("autograd_conformance/harness/strategies.py"):
        return "generation"
    if path.endswith("autograd_conformance/harness/oracles.py"):
        return "oracle"
    if "/torch/" in path:
        return "oracle"  # torch as the differential oracle of another engine (VAL-3)
    if "/harness/" in path or "/suites/" in path or path.endswith("conftest.py") \
            or "/broken/" in path:
        return "harness"
    return "pytest"


def _engine_caller(key) -> bool:
    """A script step (autograd_conformance/harness/script.py): what it calls directly is the engine at work."""
    return key[0].startswith("<step at ")


def attribute(stats: dict, engine: str) -> dict:
    totals = defaultdict(float)

    def give(key, amount, depth=0):
        category = _category(key, engine)
        if category is not None:
            totals[category] += amount
            return
        callers = stats.get(key, (0, 0, 0, 0, {}))[4]
        shares = {caller: values[2] for caller, values in callers.items()}
        total = sum(shares.values())
        if depth > 12 or total <= 0:
            totals["pytest"] += amount
            return
        for caller, share in shares.items():
            part = amount * share / total
            if _engine_caller(caller):
                totals["engine"] += part
            else:
                give(caller, part, depth + 1)

    for key, (_, _, own, _, _) in stats.items():
        if own > 0:
            give(key, own)
    return dict(totals)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="torch,reference")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-profile", action="store_true")
    args = parser.parse_args(argv)
    print(f"# Conformance run speed (`ci` profile)\n\ncommand: `python benchmarks/bench_suite.py "
          f"--engines {args.engines} --repeat {args.repeat}`; {os.cpu_count()} CPUs\n")
    for engine in args.engines.split(","):
        runs = {0: [], 2: []}
        summary = ""
        for _ in range(args.repeat):
            for workers in (0, 2):
                seconds, summary = wall(engine, workers)
                runs[workers].append(seconds)
        n0, n2 = statistics.median(runs[0]), statistics.median(runs[2])
        modules = per_module(engine)
        examples = sum(module["examples"] for module in modules.values())
        body = sum(module["seconds"] for module in modules.values())
        print(f"## {engine}\n\n{summary}\n")
        print("| run | median wall (s) | all runs (s) |\n|---|---|---|")
        print(f"| `-n 0` | {n0:.1f} | {', '.join(f'{s:.1f}' for s in runs[0])} |")
        print(f"| `-n 2` | {n2:.1f} | {', '.join(f'{s:.1f}' for s in runs[2])} |")
        print(f"\n`-n 2` / `-n 0` = {n2 / n0:.2f}; {examples} examples, {examples / n0:.0f} "
              f"examples/s at `-n 0` ({body:.1f} s inside test bodies, the rest is start-up and "
              f"collection)\n")
        print("| suite module | tests | examples | seconds in tests | examples/s |\n"
              "|---|---|---|---|---|")
        for module, figures in sorted(modules.items(), key=lambda item: -item[1]["seconds"]):
            rate = figures["examples"] / figures["seconds"] if figures["seconds"] else 0
            print(f"| {module} | {figures['tests']} | {figures['examples']} | "
                  f"{figures['seconds']:.2f} | {rate:.0f} |")
        if not args.skip_profile:
            totals = profile(engine)
            everything = sum(totals.values()) or 1.0
            print("\n| where the time goes (cProfile, `-n 0`) | seconds | share |\n|---|---|---|")
            for category in ("engine", "generation", "oracle", "harness", "pytest"):
                print(f"| {category} | {totals.get(category, 0):.1f} | "
                      f"{100 * totals.get(category, 0) / everything:.0f}% |")
            overhead = totals.get("generation", 0) + totals.get("harness", 0)
            print(f"\nharness overhead (generation + harness) / engine = "
                  f"{overhead / max(totals.get('engine', 0), 1e-9):.2f}; "
                  f"oracle / engine = {totals.get('oracle', 0) / max(totals.get('engine', 0), 1e-9):.2f}\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
