"""What a conformance test showed, as its pytest report carries it from the process that ran it
(an xdist worker, or the only process) to the controller: the one place that names each piece,
builds it, and reads it back.

The runner's plugins attach their pieces in the worker (attach.py the test's engine, behaviours
and level, the baseline's verdict, a failure's reproducers and graphs; the watchdog, stability and
op verdicts theirs, by the names below); a crashed worker's test gets its engine and its
journaled reproducer on the controller (`attach_crash`). The baseline's verdict on a listed test
travels as fields (`Excuse`), never as prose to parse again. The controller's readers (the
baseline writer, reports/) read a report with `read`, and nothing else. Names that pytest also writes into the
JUnit XML (the item's `user_properties`) keep the names the XML has always had.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import pytest

from ..harness.script import Reproducer

# The names of the pieces in a report's `user_properties`.
ENGINE = "engine"                   # the engine's name
BEHAVIOURS = "behaviours"           # the catalog IDs the test checks, space-separated
LEVEL = "level"                     # the highest level of those
REPRODUCER = "reproducer"           # one per distinct failure: a reproducer record (below); the
                                    # item's copy, for the JUnit XML, is the script's text alone
GRAPHS = "graphs"                   # {"engine": graph, "torch": graph} of a failing example
HUNG = "hung"                       # the engine hung on the test's program (watchdog.py)
NOT_RUN = "not_run"                 # why the test was not run: its engine was given up
UNSTABLE = "unstable"               # why the test counts as unstable (stability.py)
JUDGED_WITHOUT = "judged_without"   # set-aside ops its programs were drawn without (op_verdicts.py)
USES_SET_ASIDE = "uses_set_aside"   # set-aside ops it applied itself (op_verdicts.py)
# The report attribute that holds the baseline's verdict (an `Excuse` as a dict); an attribute
# rather than a property, so that the JUnit XML stays as it was.
EXCUSE = "conformance_excuse"

CRASH_ERROR = "the engine took the process down"


@dataclass(frozen=True)
class Excuse:
    """The baseline's verdict on a test it lists as a known gap: the entry that lists it."""
    file: str           # the baseline file, as --baseline named it
    line: int           # the entry's line there
    entry: str          # the entry as written (a test id, or a behaviour ID)
    why: str            # its comment, "" if none
    replayed: int       # the recorded reproducers it is judged on; 0: its own examples

    @property
    def reason(self) -> str:
        """The excuse in pytest's words (an expected failure's or a skip's reason)."""
        return (f"baseline {self.file}:{self.line}: {self.entry}"
                + (f" ({self.why})" if self.why else "")
                + (f"; judged on its {self.replayed} recorded reproducer(s)" if self.replayed
                   else ""))


def record(reproducer: Reproducer) -> dict:
    """A reproducer as a report (and the JSON results, and a baseline's evidence) carries it:
    {"script", "behaviour", "check", "error", "line"}."""
    return asdict(reproducer)


def reproducer(found: dict) -> Reproducer:
    """The reproducer of a record."""
    return Reproducer(**found)


def outside_checks(script: str, error: str) -> dict:
    """The record of a failure that no check of the script names: the engine raised (or took the
    process down) after the script's last line."""
    return record(Reproducer(script, None, False, error, script.count("\n")))


# -- on the test item: the baseline's verdict, noted at collection --------------------------------
_EXCUSED = pytest.StashKey[Excuse]()


def excuse(item, why: Excuse) -> None:
    """Note that the baseline lists the test `item` (baseline.py, at collection)."""
    item.stash[_EXCUSED] = why


def excuse_of(item) -> Excuse | None:
    """The baseline's verdict on the test `item`; None where it does not list it."""
    return item.stash.get(_EXCUSED, None)


# -- on the controller ---------------------------------------------------------------------------
def attach_crash(report, engine: str | None, script: str) -> None:
    """What the report of a test whose worker died carries (xdist attaches no metadata): its engine,
    where known, and the script its worker journaled last, where there is one."""
    if engine is not None:
        report.user_properties.append((ENGINE, engine))
    if script:
        report.user_properties.append((REPRODUCER, outside_checks(script, CRASH_ERROR)))


@dataclass
class Evidence:
    """Everything a report carries about its test."""
    engine: str | None = None
    behaviours: list[str] | None = None     # None: this report does not say
    level: str | None = None
    reproducers: list[dict] = field(default_factory=list)
    graphs: dict | None = None
    hung: bool = False
    not_run: str | None = None
    unstable: str | None = None
    judged_without: list[str] | None = None
    uses_set_aside: list[str] | None = None
    excuse: Excuse | None = None


def read(report) -> Evidence:
    """What `report` carries, in one shape. The reproducers are records only (the item's copies of
    their scripts are for the JUnit XML)."""
    properties = dict(report.user_properties)

    def words(name: str) -> list[str] | None:
        return str(properties[name]).split() if name in properties else None

    excuse = getattr(report, EXCUSE, None)
    return Evidence(
        engine=properties.get(ENGINE), behaviours=words(BEHAVIOURS), level=properties.get(LEVEL),
        reproducers=[value for name, value in report.user_properties
                     if name == REPRODUCER and isinstance(value, dict)],
        graphs=properties.get(GRAPHS), hung=bool(properties.get(HUNG)),
        not_run=properties.get(NOT_RUN), unstable=properties.get(UNSTABLE),
        judged_without=words(JUDGED_WITHOUT), uses_set_aside=words(USES_SET_ASIDE),
        excuse=Excuse(**excuse) if excuse is not None else None)
