"""One command for the conformance dashboard: run the suites against every bundled engine (each
gated by its baseline in baselines/, where there is one), then build the dashboard page and print
the README's table from the runs' JSON results.

    python -m tools.dashboard [--out reports] [--engines torch,reference,...] [-n 2]

Writes OUT/<engine>.html and .json per engine and OUT/dashboard.html. An engine that cannot be
loaded here (its package not installed) is left out with the line the harness printed; a gated run
that fails (a regression against its baseline) is kept and said. The third-party engines' versions
are the pinned ones of tox.ini and requirements-dev.txt; paddle is not in requirements-dev.txt
(`pip install paddlepaddle==3.3.1`).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from autograd_conformance.harness.engines import SHORT_NAMES
from autograd_conformance.reports.dashboard import load_results
from autograd_conformance.reports.dashboard import main as build_dashboard
from tools.conformance_table import rows

ROOT = Path(__file__).resolve().parents[1]
USAGE_ERROR = 4  # pytest's exit code for a usage error, e.g. an engine that does not load


def run_engine(engine: str, out: Path, workers: int) -> tuple[Path | None, str]:
    """The gated ci run of one engine: its JSON results (None if it did not run) and a line."""
    report = out / f"{engine}.html"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--hypothesis-profile",
               "ci", "-n", str(workers), "--engine", engine, f"--report={report}"]
    baseline = ROOT / "baselines" / f"{engine}.txt"
    if baseline.exists():
        command.append(f"--baseline={baseline.relative_to(ROOT)}")
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    last = (done.stdout.strip().splitlines() or [""])[-1]
    if done.returncode == USAGE_ERROR or not report.with_suffix(".json").exists():
        return None, f"{engine}: left out: {(done.stderr or done.stdout).strip()[-300:]}"
    gate = "" if done.returncode == 0 else f" (exit {done.returncode}: not what the baseline says)"
    return report.with_suffix(".json"), f"{engine}: {last}{gate}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "reports")
    parser.add_argument("--engines", default=",".join(SHORT_NAMES),
                        help="comma-separated engine specs (default: every bundled engine)")
    parser.add_argument("-n", "--workers", type=int, default=2)
    args = parser.parse_args()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    results = []
    for engine in args.engines.split(","):
        path, line = run_engine(engine, out, args.workers)
        print(line, flush=True)
        if path is not None:
            results.append(path)
    build_dashboard([str(path) for path in results] + ["-o", str(out / "dashboard.html")])
    print("\n".join(rows(load_results(results))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
