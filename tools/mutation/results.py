"""The results of a run: the equivalent mutants' list (equivalent.txt), the counts and the
score (`summarise`), and the report in Markdown and JSON (`write_results`)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from tools.mutation.targets import ROOT

EQUIVALENT_FILE = Path(__file__).with_name("equivalent.txt")
RESULTS_MD = ROOT / "benchmarks" / "RESULTS-mutation.md"
RESULTS_JSON = ROOT / "benchmarks" / "mutation.json"
OUTCOMES = ("killed", "timeout", "survived", "uncovered", "equivalent", "error", "not run")


def load_equivalent(path: Path = EQUIVALENT_FILE, with_diffs: bool = False) -> dict:
    """The mutants judged equivalent: `ID | change | reason` lines (# starts a comment; an
    indented line continues the reason) as {ID: reason}, or {ID: (change, reason)}. The change
    (`before  ->  after`, as `show` prints it) lets tests/test_mutation.py notice an ID that names
    another change after an edit."""
    if not path.exists():
        return {}
    entries = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0].isspace() and entries:
            entries[-1][2] += " " + line.strip()
        else:
            entries.append([part.strip() for part in line.split(" | ", 2)])
    return {mutant_id: (change, reason) if with_diffs else reason
            for mutant_id, change, reason in entries}


def summarise(rows: list[dict], equivalent: dict[str, str]) -> dict:
    """Counts and the score: (killed + timeout) / (judged - equivalent), where judged is every
    mutant but the ones a `--budget` left unrun, and uncovered ones count as survivors. An
    equivalent mutant is one listed with a reason that survived; a listed one that was killed is
    not equivalent."""
    for row in rows:
        if row["outcome"] in ("survived", "uncovered") and row["id"] in equivalent:
            row["outcome"], row["reason"] = "equivalent", equivalent[row["id"]]
        elif row["outcome"] in ("killed", "timeout") and row["id"] in equivalent:
            row["reason"] = "listed as equivalent, but killed: the list is wrong"
    counts = Counter(row["outcome"] for row in rows)
    judged = len(rows) - counts["not run"]
    detected = counts["killed"] + counts["timeout"]
    scored = judged - counts["equivalent"]
    return {"total": len(rows), "judged": judged, **{key: counts[key] for key in OUTCOMES},
            "score": round(detected / scored, 4) if scored else None}


def _table(rows: list[dict], key: str) -> list[str]:
    groups = sorted({row[key] for row in rows})
    shown = [outcome for outcome in OUTCOMES if any(row["outcome"] == outcome for row in rows)]
    lines = [f"| {key} | mutants | {' | '.join(shown)} |", "|---" * (len(shown) + 2) + "|"]
    for group in groups:
        counts = Counter(row["outcome"] for row in rows if row[key] == group)
        cells = " | ".join(str(counts[outcome]) for outcome in shown)
        lines.append(f"| {group} | {sum(counts.values())} | {cells} |")
    return lines


def write_results(rows: list[dict], summary: dict, meta: dict, markdown: Path,
                  json_path: Path) -> None:
    json_path.write_text(json.dumps({**meta, "summary": summary, "mutants": rows}, indent=1) + "\n")
    score = f"{100 * summary['score']:.1f}%" if summary["score"] is not None else "n/a"
    lines = [
        "# Mutation testing of the reference engine", "",
        f"Date: {meta['date']}  ", f"Command: `{meta['command']}`  ",
        f"Machine: {meta['cpus']} CPUs, `-j {meta['jobs']}`; wall time {meta['wall_s']:.0f} s "
        f"({meta['wall_s'] / 60:.1f} min), after a {meta['control_s']:.0f} s control run of the "
        "unmutated engine", "",
        f"Incremental: {meta.get('reused', 0)} of {summary['total']} verdicts reused from the "
        "test outcomes stored by earlier runs (each kept while its mutant, its test, the "
        "reference code that test executed and the harness are unchanged: "
        f"tools/mutation/cache.py), {summary['total'] - meta.get('reused', 0)} judged in this "
        "run, each running only the covering tests without a stored outcome that still holds; "
        f"the control ran {meta.get('control_ran', 'all')} tests (the others' stored outcomes "
        "and coverage held).", "",
        f"One session, `{meta['session']}`, collects the suites; each mutant runs in a child "
        "forked from it, with the tests that executed its site in the control (every test where "
        "coverage was off), those that killed other mutants of its function first, then the "
        "quickest first, until the first failure.", "",
        f"Mutants: {meta['generated']} generated, {summary['total']} selected, "
        f"{summary['judged']} judged; killed {summary['killed']}, "
        f"timed out {summary['timeout']} (counted as killed), survived {summary['survived']}, "
        f"uncovered {summary['uncovered']} (survivors: the control run never executes their "
        f"site{'' if meta['coverage'] else '; coverage was off'}), equivalent "
        f"{summary['equivalent']}, errors {summary['error']}, not run {summary['not run']}.", "",
        f"**Score = (killed + timeout) / (judged - equivalent) = {score}**", "",
    ]
    lines += _timing(rows)
    lines += ["## Per operator", ""] + _table(rows, "operator")
    lines += ["", "## Per function", ""] + _table(rows, "function")
    by_outcome = {outcome: [row for row in rows if row["outcome"] == outcome]
                  for outcome in OUTCOMES}
    wrongly = [row for row in rows if row.get("reason", "").startswith("listed as equivalent")]
    lines += _listing(by_outcome["survived"], "Survivors (findings: not equivalent, not killed)")
    lines += _listing(by_outcome["uncovered"],
                      "Uncovered (findings: no test executes the mutated code)")
    lines += _listing(by_outcome["equivalent"],
                      "Equivalent mutants (tools/mutation/equivalent.txt)")
    lines += _listing(by_outcome["error"],
                      "Errors (the run did not complete: not counted as killed)")
    lines += _listing(wrongly, "Listed as equivalent but killed")
    markdown.write_text("\n".join(lines) + "\n")


def _timing(rows: list[dict]) -> list[str]:
    """Median and max seconds of killed and of surviving mutants: a killed one stops at its first
    failing test, a survivor runs every suite module."""
    lines = []
    for label, outcomes in (("killed", ("killed",)), ("survivor", ("survived", "equivalent"))):
        seconds = sorted(row["seconds"] for row in rows if row["outcome"] in outcomes)
        if seconds:
            lines.append(f"Seconds per {label} mutant: median {seconds[len(seconds) // 2]:.1f}, "
                         f"max {seconds[-1]:.1f} ({len(seconds)} mutants).  ")
    return lines + [""] if lines else []


def _listing(chosen: list[dict], title: str) -> list[str]:
    if not chosen:
        return []
    lines = ["", f"## {title}", ""]
    for row in chosen:
        extra = f" ({row['reason']})" if row.get("reason") else ""
        lines.append(f"- `{row['id']}` {row['site']}: `{row['diff']}`{extra}")
    return lines
