"""The behaviour catalog (suites/catalog.toml, a resource of the package
`autograd_conformance.suites`): what each behaviour ID means and how strict it is."""

from __future__ import annotations

import importlib.resources
import tomllib
from dataclasses import dataclass
from functools import cache

CATALOG = importlib.resources.files("autograd_conformance.suites") / "catalog.toml"
SEEDS = importlib.resources.files("autograd_conformance.suites") / "seeds.toml"
DEVIATIONS = importlib.resources.files("autograd_conformance.suites") / "deviations.toml"
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
def load_catalog(path=CATALOG) -> Catalog:
    """The catalog at `path` (a file or package resource; the suites' own by default)."""
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


@dataclass(frozen=True)
class Seed:
    file: str       # as behaviours cite it: seeds/<file>
    title: str
    teaches: str


@cache
def load_seeds() -> dict[str, Seed]:
    """The seed posts the catalog cites as `seeds/<file>`, by file (suites/seeds.toml)."""
    data = tomllib.loads(SEEDS.read_text(encoding="utf-8"))
    return {entry["file"]: Seed(**entry) for entry in data["seed"]}


@dataclass(frozen=True)
class Deviation:
    behaviour: str  # the rule that keeps the promise torch 2.13 breaks
    title: str
    what: str
    script: str     # shows the departure on torch 2.13: it runs to its end there


@cache
def load_deviations() -> dict[str, Deviation]:
    """Where torch 2.13 departs from its documentation, by behaviour (suites/deviations.toml)."""
    data = tomllib.loads(DEVIATIONS.read_text(encoding="utf-8"))
    return {entry["behaviour"]: Deviation(**entry) for entry in data["deviation"]}
