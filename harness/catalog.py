"""The behaviour catalog (suites/catalog.toml): what each behaviour ID means and how strict it is."""

from __future__ import annotations

import importlib
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .. import suites

SUITES_DIR = Path(suites.__file__).resolve().parent  # where the conformance tests are, installed or not
CATALOG_PATH = SUITES_DIR / "catalog.toml"
LEVELS = ("core", "extended", "strict")


@dataclass(frozen=True)
class Behaviour:
    id: str
    area: str
    level: str
    rule: str
    source: str

    @property
    def rank(self) -> int:
        return LEVELS.index(self.level)


@dataclass(frozen=True)
class Catalog:
    areas: dict[str, str]             # area key -> title, in catalog order
    behaviours: dict[str, Behaviour]  # id -> behaviour, in catalog order


@cache
def load_catalog(path: Path = CATALOG_PATH) -> Catalog:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    areas = dict(data["areas"])
    behaviours = {}
    for entry in data["behaviour"]:
        behaviour = Behaviour(**entry)
        if behaviour.id in behaviours:
            raise ValueError(f"{path.name}: duplicate behaviour ID {behaviour.id}")
        if behaviour.level not in LEVELS:
            raise ValueError(f"{path.name}: {behaviour.id} has unknown level {behaviour.level!r}")
        if behaviour.area not in areas:
            raise ValueError(f"{path.name}: {behaviour.id} has unknown area {behaviour.area!r}")
        behaviours[behaviour.id] = behaviour
    return Catalog(areas, behaviours)


@cache
def tests_by_behaviour() -> dict[str, list[tuple[str, str]]]:
    """ID -> (suite file name, test name) of every test (function or class) whose `@behaviour(...)`
    marker names it. Imports every suite module (as `autograd_conformance.suites.<name>`)."""
    found = defaultdict(list)
    for path in sorted(SUITES_DIR.glob("test_*.py")):
        module = importlib.import_module(f"{suites.__name__}.{path.stem}")
        for name, test in vars(module).items():
            marks = getattr(test, "pytestmark", []) if name.startswith(("test_", "Test")) else []
            for mark in marks:
                if mark.name == "behaviour":
                    for behaviour in mark.args:
                        found[behaviour].append((path.name, name))
    return dict(found)
