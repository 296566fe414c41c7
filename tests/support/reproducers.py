"""Run the reproducers of a broken engine's failures both ways: each must pass under torch and fail
at its last step (the check that failed in the suite) with `torch` bound to the broken engine.

    python -m tests.support.reproducers MUTANT [MUTANT ...]

Used by tests/test_reproducers.py; each script runs in a fresh process (forked from a warm
interpreter, tests/support/warm.py), as a user would run it.
"""

from __future__ import annotations

import ast
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.broken import mutants
from tests.support.run import ROOT, run_suites
from tests.support.warm import clean_environment, run_python

# Runs the script from stdin as `reproducer.py`; with an engine spec as argument, `torch` is bound
# to that engine on the import's own line (so line numbers stay the printed script's). Prints the
# line of the script where it failed, or null.
_RUNNER = r'''
import json, sys, traceback
text, name = sys.stdin.read(), "reproducer.py"
if len(sys.argv) > 1:
    binding = ("; from autograd_conformance.harness.engines import load_engine; "
               f"torch = load_engine({sys.argv[1]!r}).ns")
    text = text.replace("import torch\n", "import torch" + binding + "\n", 1)
try:
    exec(compile(text, name, "exec"), {"__name__": "__main__"})
except Exception as error:
    lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__)
             if frame.filename == name]
    print(json.dumps({"line": lines[0] if lines else None,
                      "error": f"{type(error).__name__}: {error}"[:500]}))
else:
    print(json.dumps({"line": None, "error": None}))
'''


@dataclass
class Verdict:
    nodeid: str
    behaviour: str | None
    on_torch: str | None        # the error under torch (None: it ran to its end)
    on_engine: str | None       # the error with torch bound to the broken engine
    failed_at_last_step: bool

    @property
    def ok(self) -> bool:
        return self.on_torch is None and self.on_engine is not None and self.failed_at_last_step


def run_script(text: str, engine: str | None = None, timeout: float = 120) -> dict:
    """Run a reproducer in a fresh process (under torch, or with torch = `engine`)."""
    completed = run_python(["-c", _RUNNER] + ([engine] if engine else []), input=text,
                           cwd=ROOT, env=clean_environment(), timeout=timeout)
    if completed.returncode != 0 or not completed.stdout.strip():
        return {"line": None, "error": f"the interpreter exited {completed.returncode}: "
                                       f"{completed.stderr[-500:]}"}
    return json.loads(completed.stdout.strip().splitlines()[-1])


def last_step(text: str) -> range:
    """The lines of the script's last top-level statement."""
    statement = ast.parse(text).body[-1]
    return range(statement.lineno, statement.end_lineno + 1)


def failure_scripts(mutant: str) -> list[tuple[str, str | None, str]]:
    """(test id, behaviour, script) of every reproducer in a run of the mutant's behaviours."""
    with tempfile.TemporaryDirectory() as scratch:
        results = Path(scratch) / "run.json"
        run_suites(mutants()[mutant].spec, mutants()[mutant].behaviours, stop_first=False,
                   extra=["--json-report", str(results)])
        tests = json.loads(results.read_text())["tests"] if results.exists() else []
    return [(test["nodeid"], found["behaviour"], found["script"])
            for test in tests if test["outcome"] == "failed"
            for found in test.get("reproducers", [])]


def judge(mutant: str) -> list[Verdict]:
    verdicts = []
    for nodeid, behaviour, text in failure_scripts(mutant):
        on_torch = run_script(text)
        on_engine = run_script(text, mutants()[mutant].spec)
        verdicts.append(Verdict(nodeid, behaviour, on_torch["error"], on_engine["error"],
                                on_engine["line"] in last_step(text)))
    return verdicts


def main(mutants: list[str]) -> int:
    bad = 0
    for mutant in mutants:
        verdicts = judge(mutant)
        if not verdicts:
            bad += 1
            print(f"NONE {mutant}: the run left no reproducer")
        for verdict in verdicts:
            bad += not verdict.ok
            print(f"{'OK  ' if verdict.ok else 'BAD '} {mutant} {verdict.nodeid} "
                  f"[{verdict.behaviour or '-'}]\n      torch: {verdict.on_torch or 'ran to its end'}"
                  f"\n      {mutant}: {verdict.on_engine or 'ran to its end'}"
                  f"{'' if verdict.failed_at_last_step else ' (not at the last step)'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
