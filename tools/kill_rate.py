#!/usr/bin/env python
"""Kill rate of the conformance suites over the broken-engine catalog (tests/broken).

For every mutant, runs `pytest suites --engine tests.broken:<mutant> --behaviour ID ...` with the
`ci` profile (a subprocess per mutant, `-j` at a time) and prints whether it was killed, which
declared behaviours' tests failed, and how many examples hypothesis needed to find the first
failure (counted by the probe plugin tests/support/probe.py: the call number of the first failing
call of the test body, before shrinking; 1 for a plain test). Then the kill rate: killed / total,
where a mutant counts as killed only if a test of every behaviour it declares failed.

    python -m tools.kill_rate [-j 2] [--profile ci] [--json out.json] [MUTANT ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.broken import mutants
from tests.support.run import run_suites


def judge(name: str, profile: str) -> dict:
    behaviours = mutants()[name].behaviours
    run = run_suites(mutants()[name].spec, behaviours, profile=profile, stop_first=len(behaviours) == 1)
    per_behaviour = {}
    for behaviour in behaviours:
        failed = run.failed_for(behaviour)
        per_behaviour[behaviour] = {
            "killed": bool(failed),
            "examples": run.examples_to_fail(behaviour),
            "tests": [record["nodeid"].split("::")[-1] for record in failed],
        }
    killed = run.returncode == 1 and all(entry["killed"] for entry in per_behaviour.values())
    return {"mutant": name, "killed": killed, "returncode": run.returncode,
            "seconds": round(run.seconds, 2), "behaviours": per_behaviour,
            "tail": "" if killed else run.tail(15)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mutants", nargs="*", help="mutants to run (default: all)")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--profile", default="ci")
    parser.add_argument("--json", help="write the results as JSON to this path")
    args = parser.parse_args(argv)
    names = args.mutants or sorted(mutants())
    unknown = [name for name in names if name not in mutants()]
    if unknown:
        parser.error(f"unknown mutants: {unknown}")
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda name: judge(name, args.profile), names))
    width = max(len(name) for name in names)
    print(f"{'mutant':<{width}}  killed  behaviour: examples to first failure (failing tests)")
    for result in results:
        details = "; ".join(
            f"{behaviour}: {entry['examples'] if entry['killed'] else 'MISSED'}"
            + (f" ({', '.join(entry['tests'][:2])})" if entry["tests"] else "")
            for behaviour, entry in result["behaviours"].items())
        print(f"{result['mutant']:<{width}}  {'yes' if result['killed'] else 'NO':<6}  {details}")
        if not result["killed"]:
            print("    exit", result["returncode"], "\n    " + result["tail"].replace("\n", "\n    "))
    killed = sum(result["killed"] for result in results)
    examples = [entry["examples"] for result in results
                for entry in result["behaviours"].values() if entry["examples"] is not None]
    print(f"\nkill rate ({args.profile} profile): {killed}/{len(results)} = "
          f"{100 * killed / len(results):.1f}%")
    if examples:
        examples.sort()
        print(f"examples to first failure: median {examples[len(examples) // 2]}, "
              f"max {examples[-1]}, over {len(examples)} (mutant, behaviour) pairs")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0 if killed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
