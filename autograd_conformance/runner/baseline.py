"""The baseline of known gaps: `--baseline FILE` excuses listed failures, `--write-baseline FILE`
writes the current ones, `--baseline-mode` says whether excused tests run (strict expected
failures) or are skipped (a fast gate).

File format (docs/ci-workflow.md has the full rules): one entry per line; `#` at the start of a
line or after whitespace starts a comment; blank lines are ignored. An entry is exactly one of
- a test id as pytest prints it in a checkout (its path relative to the directory that holds
  `suites/`, whatever the run's rootdir): `suites/test_leaves.py::test_x[mygrad]` matches that
  test only;
- a test id without its parameters: `suites/test_leaves.py::test_x` matches it on every engine;
- a catalog behaviour ID: `LEAF-6` matches every test marked with that behaviour, on every engine.
Matching is exact (no globs, no prefixes). An entry that matches no collected test is a warning.

A known gap is pinned by what showed it: `--write-baseline FILE` also writes FILE's evidence
(`<stem>.evidence.json` beside it: each listed test's reproducers, the torch scripts of its
failures). A listed test with evidence is judged on its evidence alone, replayed on the engine
instead of the test's own examples: it stays an expected failure while one of its reproducers
still fails, and is fixed (a strict xpass, which fails the run until its line is deleted) only
when every one of them runs to its end. A reproducer that starts threads may fail or not by how
they are scheduled, so it is replayed until its outcome is certain (up to 20 times: fixed only if
every replay runs clean); a test whose reproducers failed in some replays and in none of them
every time is unstable (runner/stability.py: an expected failure that says so). So a change of
the suite's generator, of the examples hypothesis draws (another seed, another hypothesis) or of
the machine's load never flips a known gap either way; only the engine can. A listed test without
evidence (an entry written by hand, or a behaviour ID that matches a new test) runs as an expected
failure.

This module decides which tests the baseline excuses; it does not judge outcomes (pytest's strict
xfail does: a listed test that passes fails the run). An excused test that runs its examples
(`xfail` mode, no evidence) stops at its first failing example: hypothesis does not shrink it,
since its smallest counterexample was recorded when the gap was baselined (or is one
`--no-baseline` run away), and shrinking every known gap again on every run would make a gate with
many gaps several times slower than one without.

The baseline's verdict on a listed test travels with its reports as fields (runner/evidence.py's
`Excuse`: file, line, entry, comment, reproducers replayed); the reason pytest prints is written
from them. Writing a baseline is baseline_writer.py's.
"""

from __future__ import annotations

import contextlib
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import hypothesis
import pytest
from hypothesis import Phase, settings

from ..harness.catalog import load_catalog
from ..harness.script import HEADER, REPRODUCER, Replays, Reproducer, body, replay_until_certain
from .evidence import Excuse, excuse, reproducer
from .plugin import behaviour_ids, item_engine, suite_nodeid

_COMMENT = re.compile(r"(^|\s)#")


class BaselineWarning(UserWarning):
    """An entry of the baseline file matches no collected test."""


@dataclass(frozen=True)
class Entry:
    text: str       # the entry as written
    why: str        # its comment, "" if none
    line: int       # 1-based line number in the file


def parse_baseline(text: str) -> list[Entry]:
    """The entries of a baseline file, in order."""
    entries = []
    for number, raw in enumerate(text.splitlines(), start=1):
        match = _COMMENT.search(raw)
        entry = (raw[:match.start()] if match else raw).strip()
        why = raw[match.end():].strip() if match else ""
        if entry:
            entries.append(Entry(entry, why, number))
    return entries


def matches(entry: str, nodeid: str, behaviours: list[str]) -> bool:
    """Whether a baseline entry names the test `nodeid` that checks `behaviours`."""
    return entry == nodeid or entry == nodeid.split("[", 1)[0] or entry in behaviours


def evidence_path(baseline: Path) -> Path:
    """Where the evidence of the baseline file `baseline` is: beside it."""
    return baseline.with_name(baseline.stem + ".evidence.json")


def read_evidence(baseline: Path) -> dict[str, list[Reproducer]]:
    """Test id -> the reproducers that showed its gap ({} where the baseline has no evidence)."""
    try:
        data = json.loads(evidence_path(baseline).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    return {nodeid: [reproducer({**{key: value for key, value in found.items() if key != "body"},
                                 "script": HEADER + found["body"]})
                     for found in listed]
            for nodeid, listed in data["tests"].items()}


def write_evidence(baseline: Path, evidence: dict[str, list[dict]]) -> None:
    """Each test's reproducers, the script without the header every reproducer starts with."""
    tests = {nodeid: [{key: value for key, value in found.items() if key != "script"}
                      | {"body": body(found["script"])} for found in listed]
             for nodeid, listed in evidence.items() if listed}
    data = {"about": "the reproducers that showed each known gap of the baseline beside this "
                     "file (autograd_conformance/runner/baseline.py)", "tests": tests}
    evidence_path(baseline).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def pytest_configure(config):
    path = config.getoption("baseline")
    if path:
        baseline = config.invocation_params.dir / path
        try:
            config.stash[_ENTRIES] = parse_baseline(baseline.read_text(encoding="utf-8"))
        except OSError as error:
            raise pytest.UsageError(f"--baseline {path}: {error.strerror}") from None
        config.stash[_EVIDENCE] = read_evidence(baseline)


_ENTRIES = pytest.StashKey[list]()
_EVIDENCE = pytest.StashKey[dict]()


def listed_entries(config) -> list[Entry] | None:
    """The entries of the run's --baseline file; None without one."""
    return config.stash.get(_ENTRIES, None)


def recorded_evidence(config) -> dict[str, list[Reproducer]]:
    """Test id -> the reproducers the run's --baseline recorded for it."""
    return config.stash.get(_EVIDENCE, {})
_EXPECTED_TO_FAIL = pytest.StashKey[bool]()
_REPLAYED = pytest.StashKey[list]()    # the evidence a listed test is judged on


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark the listed tests before the level and --behaviour selection, so that an entry counts
    as matching when its test exists at all."""
    entries = listed_entries(config)
    if not entries:
        return
    path = config.getoption("baseline")
    used = set()
    for item in items:
        behaviours = behaviour_ids(item)
        entry = next((e for e in entries if matches(e.text, suite_nodeid(config, item), behaviours)), None)
        if entry is None:
            continue
        used.add(entry)
        evidence = config.stash[_EVIDENCE].get(suite_nodeid(config, item))
        if evidence:
            item.stash[_REPLAYED] = evidence
        listed = Excuse(str(path), entry.line, entry.text, entry.why, len(evidence or ()))
        excuse(item, listed)
        if config.getoption("baseline_mode") == "skip":
            item.add_marker(pytest.mark.skip(reason=listed.reason))
        else:
            item.add_marker(pytest.mark.xfail(reason=listed.reason, strict=True))
            item.stash[_EXPECTED_TO_FAIL] = True
    catalog = load_catalog().behaviours
    for entry in entries:
        if entry not in used:
            kind = "behaviour ID" if entry.text in catalog else "test id"
            warnings.warn(BaselineWarning(
                f"{path}:{entry.line}: baseline entry {entry.text!r} ({kind}) matches no "
                f"collected test; remove it or fix its spelling"))


def excused(item) -> bool:
    """Whether the baseline lists `item` as a known gap that runs (and is expected to fail)."""
    return item.stash.get(_EXPECTED_TO_FAIL, False)


def replays_evidence(item) -> bool:
    """Whether the listed test `item` is judged on its recorded reproducers, not its examples."""
    return excused(item) and bool(item.stash.get(_REPLAYED, None))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Judge a known gap on its evidence where it has some, else run it without hypothesis'
    shrink phase (see the module's docstring)."""
    if not excused(item):
        return (yield)
    if replays_evidence(item):
        item.runtest = lambda: replay_evidence(item.stash[_REPLAYED], item_engine(item))
        try:
            return (yield)
        finally:
            del item.runtest
    with first_failure_only(item.obj):
        return (yield)


class KnownGapStillShows(AssertionError):
    """A listed test's recorded reproducers still fail on the engine."""


class UnstableOutcome(AssertionError):
    """A listed test's recorded reproducers failed in some replays and ran clean in others (runner/
    stability.py reports the test as unstable); raised from the failures seen."""


def replay_evidence(evidence: list[Reproducer], engine) -> None:
    """Replay each recorded reproducer, one that starts threads until its outcome is certain
    (`replay_until_certain`). Raise KnownGapStillShows for each that failed (an exception group
    for several), carrying it as it failed; raised from them, UnstableOutcome where none failed
    every replay; return if every replay ran to its end."""
    replayed = [replay_until_certain(reproducer, engine) for reproducer in evidence]
    errors = [_carrying(replays) for replays in replayed if replays.failures]
    if not errors:
        return
    failure = errors[0] if len(errors) == 1 else ExceptionGroup(
        f"{len(errors)} of {len(evidence)} recorded reproducers still fail", errors)
    if any(replays.verdict == "fails" for replays in replayed):
        raise failure
    raise UnstableOutcome(f"its recorded reproducer(s) {', '.join(map(str, replayed))}") \
        from failure


def _carrying(replays: Replays) -> KnownGapStillShows:
    """The first failure of a reproducer's replays, carrying it as it failed."""
    reproducer = replays.failures[0]
    error = KnownGapStillShows(f"the known gap still shows: {reproducer.error}"
                               + (f" ({replays})" if replays.runs > 1 else ""))
    setattr(error, REPRODUCER, reproducer)
    return error


@contextlib.contextmanager
def first_failure_only(test):
    """While `test` runs, hypothesis stops at the first failing example. Two places hold the
    settings a test runs with: the attribute that @given reads on each call (hypothesis' own name;
    fixed when the module was imported), and the default profile, which tests that build their
    settings when they run (a state machine's) read."""
    previous_profile = settings.get_current_profile_name()
    settings.register_profile(f"{previous_profile}-first-failure",
                              _without_shrinking(settings.default))
    settings.load_profile(f"{previous_profile}-first-failure")
    own = getattr(test, "_hypothesis_internal_use_settings", None)
    if own is None and getattr(test, "is_hypothesis_test", False):
        raise RuntimeError(f"hypothesis {hypothesis.__version__} keeps a test's settings "
                           f"elsewhere: a known gap would be shrunk on every run; use the tested "
                           f"hypothesis (see README)")
    if own is not None:
        test._hypothesis_internal_use_settings = _without_shrinking(own)
    try:
        yield
    finally:
        settings.load_profile(previous_profile)
        if own is not None:
            test._hypothesis_internal_use_settings = own


def _without_shrinking(parent: settings) -> settings:
    return settings(parent, phases=[phase for phase in parent.phases
                                    if phase not in (Phase.shrink, Phase.explain)])
