"""The pytest plugin that turns the suites into a conformance run over selected engines.

Options (declared in options.py): `--engine` (repeatable; or AUTOGRAD_ENGINE), `--device`,
`--level`, `--behaviour`. Every test that takes the `engine` fixture runs once per engine,
with the engine's name in the test id. Markers: `behaviour(*ids)` names the catalog behaviours a
test checks (its level is the highest of theirs); `needs(*capabilities)` skips the test, with a
reason naming the capability, on engines that do not declare it.
"""

from __future__ import annotations

import os

import hypothesis
import pytest

from ..harness.catalog import LEVELS, load_catalog
from ..harness.contract import CAPABILITIES
from ..harness.engines import Engine, EngineLoadError, load_engine, specs_from
from ..harness.script import Script, listening
from ..suites import SUITES_DIR
from . import needs

ENGINES_KEY = pytest.StashKey[list]()
# The last script (autograd_conformance/harness/script.py) a conformance test started: its program's
# graphs go with a failure's report (evidence.py).
LAST_SCRIPT = pytest.StashKey[Script]()
# Warnings the suites provoke on purpose, kept out of the run's summary wherever the suites run; set
# on the tests themselves, so that other tests in the same environment keep their own settings.
SUITE_WARNING_FILTERS = (
    "ignore:The .grad attribute of a Tensor that is not a leaf Tensor:UserWarning",
    "ignore::DeprecationWarning:libcst",
    # torch's own deprecation, raised inside torch when forward-mode AD scripts a helper; not the
    # engine's doing, and not something an engine author can act on
    "ignore:`torch.jit.script` is deprecated:DeprecationWarning",
)


def pytest_configure(config):
    selected_engines(config)  # a bad --engine stops the run here, in one line
    empty_local_constants()
    if not config.getoption("hypothesis_profile", None):
        hypothesis.settings.load_profile("dev")  # registered in autograd_conformance/pytest_plugin.py


def selected_engines(config) -> list:
    """The engines of this run, loaded once; a bad spec becomes one line from pytest."""
    if ENGINES_KEY not in config.stash:
        specs = specs_from(config.getoption("engine"), os.environ.get("AUTOGRAD_ENGINE"))
        engines = []
        for spec in specs:
            try:
                engines.append(load_engine(spec, config.getoption("device")))
            except EngineLoadError as error:
                raise pytest.UsageError(str(error)) from None
        names = [engine.name for engine in engines]
        if len(set(names)) != len(names):
            raise pytest.UsageError(f"engines selected twice: {', '.join(names)}")
        config.stash[ENGINES_KEY] = engines
    return config.stash[ENGINES_KEY]


def described_engines(config) -> list[dict]:
    """The engines of this run as the report describes them: name, version, spec, the
    capabilities they declare and the ops they lack."""
    return [{"name": e.name, "version": e.version, "spec": e.spec,
             "capabilities": sorted(e.capabilities), "missing_ops": sorted(e.missing_ops)}
            for e in selected_engines(config)]


def empty_local_constants() -> None:
    """Hypothesis draws about one number in twenty from the constants written in the local modules
    a process has imported so far (its own code, not site-packages). For the suites that made a
    derandomized run's examples depend on the harness's and the engines' code and on what the
    process imported before a test (xdist workers, a --behaviour selection, a mutation run's
    children drew different examples for the same test). With that pool empty, a test's examples
    depend on the test and hypothesis alone; hypothesis' own interesting numbers (0, 1, the float
    edges, ...) still take their one draw in twenty. tests/test_strategies.py checks it."""
    from hypothesis.internal.conjecture import providers
    if not hasattr(providers, "_get_local_constants"):
        raise RuntimeError(f"hypothesis {hypothesis.__version__} has no "
                           f"providers._get_local_constants: the ci profile's examples would "
                           f"depend on the loaded code; use the tested hypothesis (see README)")
    providers._get_local_constants = providers.Constants


def suite_nodeid(config, node) -> str:
    """The id of a test (an item or its report) with the path relative to the directory that holds
    the suites (`suites/test_x.py::test_y[engine]`), whatever pytest's rootdir and arguments: how a
    baseline names tests."""
    try:
        path = (config.rootpath / node.location[0]).resolve().relative_to(SUITES_DIR.parent)
    except ValueError:
        return node.nodeid
    return f"{path.as_posix()}::{node.nodeid.split('::', 1)[1]}"


def pytest_report_header(config):
    engines = selected_engines(config)
    listed = ", ".join(f"{e.name} {e.version}" for e in engines)
    return f"autograd-conformance: engines {listed}; level {config.getoption('level')}; " \
           f"device {config.getoption('device')}"


def pytest_generate_tests(metafunc):
    """Run every conformance test once per engine; tests outside suites/ are left alone."""
    if "engine" in metafunc.fixturenames and SUITES_DIR in metafunc.definition.path.parents:
        engines = selected_engines(metafunc.config)
        metafunc.parametrize("engine", engines, ids=[e.name for e in engines], scope="session")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Run a conformance test inside its engine's context (see `Engine.context`), keeping the last
    script it starts on the item."""
    engine = item_engine(item)
    if engine is None:
        return (yield)
    with listening(LastScript(item)), engine.context():
        return (yield)


class LastScript:
    """A script listener that keeps the test's latest script on its item, for its evidence."""

    def __init__(self, item):
        self.item = item

    def script_started(self, script: Script) -> None:
        self.item.stash[LAST_SCRIPT] = script

    def step_recorded(self, script: Script) -> None:
        pass


def item_engine(item) -> Engine | None:
    """The engine a conformance test runs on; None for any other test (e.g. the project's own)."""
    engine = item.callspec.params.get("engine") if hasattr(item, "callspec") else None
    return engine if isinstance(engine, Engine) else None


def behaviour_ids(item) -> list[str]:
    return [id_ for mark in item.iter_markers("behaviour") for id_ in mark.args]


def item_level(item) -> str | None:
    behaviours = load_catalog().behaviours
    ranks = [behaviours[id_].rank for id_ in behaviour_ids(item) if id_ in behaviours]
    return LEVELS[max(ranks)] if ranks else None


def pytest_collection_modifyitems(config, items):
    catalog = load_catalog().behaviours
    max_rank = LEVELS.index(config.getoption("level"))
    wanted = set(config.getoption("behaviour") or ())
    unknown_wanted = wanted - set(catalog)
    if unknown_wanted:
        raise pytest.UsageError(f"--behaviour: unknown IDs {sorted(unknown_wanted)}; "
                                f"the catalog is suites/catalog.toml")
    selected, deselected = [], []
    for item in items:
        if SUITES_DIR in item.path.parents:
            for spec in SUITE_WARNING_FILTERS:
                item.add_marker(pytest.mark.filterwarnings(spec))
        unknown = [id_ for id_ in behaviour_ids(item) if id_ not in catalog]
        if unknown:
            raise pytest.UsageError(f"{item.nodeid} names unknown behaviour IDs {unknown}; "
                                    f"add them to suites/catalog.toml")
        level = item_level(item)
        too_strict = level is not None and LEVELS.index(level) > max_rank
        not_wanted = bool(wanted) and not wanted.intersection(behaviour_ids(item))
        (deselected if too_strict or not_wanted else selected).append(item)
        engine = item_engine(item)
        if engine is None:
            continue
        needed = needs.needed_capabilities(item)
        for capability in needed:
            if capability not in CAPABILITIES:
                raise pytest.UsageError(f"{item.nodeid} needs unknown capability {capability!r}")
        missing = [cap for cap in needed if not engine.has(cap)]
        if missing:
            item.add_marker(pytest.mark.skip(
                reason=f"engine {engine.name!r} does not declare capability "
                       f"{', '.join(repr(cap) for cap in missing)}"))
        elif reason := needs.skip_reason(engine, needs.key_of(suite_nodeid(config, item),
                                                             engine.name)):
            item.add_marker(pytest.mark.skip(reason=reason))   # a name its adapter lacks
        lacking = [op for mark in item.iter_markers("op") for op in mark.args
                   if op in engine.missing_ops]
        if lacking:
            item.add_marker(pytest.mark.skip(
                reason=f"engine {engine.name!r} lacks op {', '.join(lacking)} (its adapter's "
                       f"missing_ops)"))
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected
