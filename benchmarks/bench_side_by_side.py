#!/usr/bin/env python
"""The `ci` run of one engine in this checkout against the same run in an earlier commit.

Issue 11 asks that the run stay within 1.3x of its time at 3bc3311, the commit it was filed at.
The suites have grown since, so the checkout runs twice: restricted to the base commit's
behaviours (one `--behaviour ID` for each ID of its suites/catalog.toml: the same behaviours,
checked by today's tests and generator) and, with --whole, in full. Each side runs in a venv of
its own that has only its requirements.txt (so that both load the same pytest plugins), the base
in a git worktree; each round runs the commands in turn, and the report gives every time, the
medians and the ratios of the medians and of each round.

    python benchmarks/bench_side_by_side.py [--base 3bc3311] [--rounds 5] [--engine torch]
                                            [-n 2] [--whole] [--work DIR]

--work keeps the worktree and the venvs between calls (default: a temporary directory).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def venv(directory: Path, project: Path) -> Path:
    """A venv at `directory` with `project`'s requirements.txt and the project itself (editable);
    its python."""
    python = directory / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(directory)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "-r", "requirements.txt",
                        "-e", "."], cwd=project, check=True)
    return python


def worktree(directory: Path, commit: str) -> Path:
    if not directory.exists():
        subprocess.run(["git", "worktree", "add", "--detach", str(directory), commit],
                       cwd=ROOT, check=True, capture_output=True)
    return directory


def behaviour_ids(commit: str) -> list[str]:
    catalog = subprocess.run(["git", "show", f"{commit}:suites/catalog.toml"], cwd=ROOT,
                             check=True, capture_output=True, text=True).stdout
    return re.findall(r'^id = "([^"]+)"', catalog, flags=re.MULTILINE)


def timed(python: Path, project: Path, engine: str, workers: int, extra: list[str]):
    """Wall seconds of one run of the suites, and pytest's summary line."""
    command = [str(python), "-m", "pytest", "suites", "--engine", engine, "-n", str(workers),
               "--hypothesis-profile", "ci", "--no-report", "-q", "-p", "no:cacheprovider", *extra]
    started = time.perf_counter()
    completed = subprocess.run(command, cwd=project, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    summary = (completed.stdout.strip().splitlines() or ["(no output)"])[-1]
    if completed.returncode != 0:
        sys.exit(f"{' '.join(command)} failed in {project}:\n{completed.stdout[-3000:]}")
    return seconds, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="3bc3311")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--engine", default="torch")
    parser.add_argument("-n", dest="workers", type=int, default=2)
    parser.add_argument("--whole", action="store_true", help="also run the checkout in full")
    parser.add_argument("--work", type=Path, help="keep the worktree and venvs here")
    args = parser.parse_args()

    work = args.work or Path(tempfile.mkdtemp(prefix="side-by-side-"))
    base = worktree(work / "base", args.base)
    sides = {f"{args.base}, whole": (venv(work / "venv-base", base), base, []),
             f"this checkout, {args.base}'s behaviours":
                 (venv(work / "venv-checkout", ROOT), ROOT,
                  [option for id_ in behaviour_ids(args.base) for option in ("--behaviour", id_)])}
    if args.whole:
        sides["this checkout, whole"] = (sides[f"this checkout, {args.base}'s behaviours"][0],
                                         ROOT, [])
    times: dict[str, list[float]] = {name: [] for name in sides}
    summaries: dict[str, str] = {}
    for round_ in range(1, args.rounds + 1):
        for name, (python, project, extra) in sides.items():
            seconds, summaries[name] = timed(python, project, args.engine, args.workers, extra)
            times[name].append(seconds)
            print(f"round {round_}: {name}: {seconds:.1f}s ({summaries[name]})", flush=True)

    base_name, restricted = list(sides)[:2]
    print(f"\n`pytest suites --engine {args.engine} -n {args.workers} --hypothesis-profile ci "
          f"--no-report`, {args.rounds} rounds, wall seconds:\n")
    print("| code | runs (s) | median (s) | pytest's summary (last round) |\n|---|---|---|---|")
    for name, runs in times.items():
        print(f"| {name} | {', '.join(f'{t:.1f}' for t in runs)} | "
              f"{statistics.median(runs):.1f} | {summaries[name]} |")
    per_round = [new / old for new, old in zip(times[restricted], times[base_name])]
    print(f"\nSame behaviours: ratio of the medians "
          f"{statistics.median(times[restricted]) / statistics.median(times[base_name]):.3f}, "
          f"median of the rounds' ratios {statistics.median(per_round):.3f} "
          f"({', '.join(f'{r:.3f}' for r in per_round)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
