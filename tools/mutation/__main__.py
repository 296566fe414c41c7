"""The command line of the mutation tester (see tools/mutation/__init__.py): `python -m
tools.mutation list`, `show ID ...` and `run`."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import sys
import textwrap
from collections import Counter
from pathlib import Path

from tools import mutation
from tools.mutation import runner
from tools.mutation.cache import CACHE_FILE, Cache, harness
from tools.mutation.mutants import Mutant, generate
from tools.mutation.results import RESULTS_JSON, RESULTS_MD, load_equivalent, summarise, write_results
from tools.mutation.targets import targets

PROG = "python -m tools.mutation"


def _select(mutants: list[Mutant], ids: list[str], sample: int | None, seed: int) -> list[Mutant]:
    if ids:
        by_id = {mutant.id: mutant for mutant in mutants}
        unknown = [mutant_id for mutant_id in ids if mutant_id not in by_id]
        if unknown:
            raise SystemExit(f"unknown mutants: {unknown}")
        return [by_id[mutant_id] for mutant_id in ids]
    if sample is not None and sample < len(mutants):
        chosen = set(random.Random(seed).sample(range(len(mutants)), sample))
        return [mutant for index, mutant in enumerate(mutants) if index in chosen]
    return mutants


def cmd_list(args) -> int:
    mutants = generate()
    if args.ids:
        for mutant in mutants:
            print(mutant.id)
        return 0
    for key in ("operator", "file"):
        counts = Counter(getattr(mutant, key) for mutant in mutants)
        print(f"{key}:")
        for name, count in sorted(counts.items()):
            print(f"  {name:<28} {count}")
    print(f"total: {len(mutants)} mutants in {len(targets())} functions")
    return 0


def cmd_show(args) -> int:
    by_id = {mutant.id: mutant for mutant in generate()}
    for mutant_id in args.ids:
        mutant = by_id[mutant_id]
        print(f"{mutant.id}\n  {mutant.site} ({mutant.qualname}): {mutant.diff}\n")
        print(textwrap.indent(mutant.source, "    "), "\n")
    return 0


def cmd_run(args) -> int:
    generated = generate()
    mutants = _select(generated, args.ids, args.sample, args.seed)
    cache = Cache(Path(args.cache), harness(args), fresh=args.fresh)
    result = runner.run(mutants, args, cache)
    if result is None:
        return 2
    control, traced, rows, wall = result
    summary = summarise(rows, load_equivalent())
    meta = {"date": datetime.date.today().isoformat(), "command": " ".join([PROG, *sys.argv[1:]]),
            "generated": len(generated), "cpus": os.cpu_count(), "jobs": args.jobs,
            "wall_s": round(wall, 1), "control_s": control["seconds"], "coverage": traced,
            "control_ran": control.get("ran"),
            "reused": sum(bool(row.get("cached")) for row in rows),
            "session": " ".join(["python -m pytest",
                                 *runner.pytest_args(args.test_timeout, args.keyword)])}
    write_results(rows, summary, meta, Path(args.markdown), Path(args.json))
    print(json.dumps(summary), f"reused {meta['reused']}, wall {wall:.0f}s",
          f"-> {args.markdown}, {args.json}")
    return 0 if summary["survived"] == summary["uncovered"] == summary["error"] == 0 else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=mutation.__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="count the mutants per operator and file")
    listing.add_argument("--ids", action="store_true", help="print every mutant's id instead")
    show = commands.add_parser("show", help="print mutants' changes and mutated functions")
    show.add_argument("ids", nargs="+")
    run = commands.add_parser("run", help="run the suites against mutants, write the results")
    run.add_argument("ids", nargs="*", help="mutants to run (default: all)")
    run.add_argument("-j", "--jobs", type=int, default=2)
    run.add_argument("--sample", type=int, help="run a seeded random sample of this many")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--budget", type=float, metavar="MINUTES",
                     help="start no mutant after this long; the rest are reported as not run")
    run.add_argument("--timeout", type=float, default=300,
                     help="seconds before a mutant's whole run is stopped (a timeout)")
    run.add_argument("--test-timeout", type=float, default=30,
                     help="seconds before one test is stopped by the harness (a timeout)")
    run.add_argument("-k", dest="keyword", metavar="EXPRESSION",
                     help="only the suite tests that match (pytest's -k): a quicker, weaker run")
    run.add_argument("--no-control", action="store_true",
                     help="skip the control run (quick checks only: trusts the suites to pass; "
                          "no coverage, so every mutant runs every test)")
    run.add_argument("--no-coverage", action="store_true",
                     help="run the mutants the control never reached too (they must survive)")
    run.add_argument("--fresh", action="store_true",
                     help="run every mutant, reusing no stored verdict (they are stored anew)")
    run.add_argument("--cache", default=str(CACHE_FILE),
                     help="the stored verdicts that an incremental run reuses (see cache.py)")
    run.add_argument("--markdown", default=str(RESULTS_MD))
    run.add_argument("--json", default=str(RESULTS_JSON))
    args = parser.parse_args(argv)
    return {"list": cmd_list, "show": cmd_show, "run": cmd_run}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
