"""The package layout a newcomer can follow: an import name is its folder path (only suites/,
reference/ and reports/ are installed under the package's name, as the design card fixes them at
the top), nothing is imported under a bare top-level folder name, the library the suites are
written with (autograd_conformance/harness) never imports the pytest runner, and a test's evidence
flows one way, library -> runner -> report room: the report room never touches an engine, and the
runner never reads what the report room would attach."""

import ast
import re
import sys
import tomllib

import pytest

from tests.support.modules import MAPPED, ROOT, imports_of, module_name, project_modules

LIBRARY = "autograd_conformance.harness"
REPORTS = "autograd_conformance.reports"
RUNNER = "autograd_conformance.runner"
# What reads or runs an engine: engine loading and the engines themselves, the scripts a test runs
# on one, the graph read from its tensors, and the runner's handles on the run's engines.
ENGINE_MODULES = ("autograd_conformance.harness.engines", "autograd_conformance.harness.script",
                  "autograd_conformance.harness.graphs", "autograd_conformance.adapters",
                  "autograd_conformance.reference", "tests.broken", "torch")
ENGINE_NAMES = {"selected_engines", "item_engine", "load_engine", "Engine", "LAST_SCRIPT"}
RUNNER_SIDE = ("autograd_conformance.runner", "autograd_conformance.reports",
               "autograd_conformance.pytest_plugin", "autograd_conformance.cli")
TOP_FOLDERS = sorted(path.name for path in ROOT.iterdir()
                     if path.is_dir() and not path.name.startswith("."))
# Names that work only from some directory by accident: a top-level folder, or a module of the
# project imported by its file name (a sibling script on sys.path), unless the standard library
# has a module of that name (reports/html.py and `html`).
BARE = (set(TOP_FOLDERS) | {name.rpartition(".")[2] for name in project_modules()}) \
    - set(sys.stdlib_module_names)


def test_only_the_three_fixed_folders_are_mapped():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["package-dir"] == {name: folder for folder, name in MAPPED.items()}
    for package in setuptools["packages"]:
        folder = next((folder for folder, name in MAPPED.items()
                       if package == name or package.startswith(name + ".")), None)
        path = (package.replace(MAPPED[folder], folder, 1) if folder else package).replace(".", "/")
        assert (ROOT / path / "__init__.py").is_file(), f"{package} is not the folder {path}"


def test_every_import_name_is_its_folder_path():
    for name, path in project_modules().items():
        folder = path.relative_to(ROOT).parts[0]
        expected = path.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
        if folder in MAPPED:
            expected = expected.replace(folder, MAPPED[folder], 1)
        assert name == expected.removesuffix(".__init__")


@pytest.mark.parametrize("name", sorted(project_modules()))
def test_no_bare_top_level_folder_name_is_imported(name):
    """`broken`, `scripts`, `harness`, `suites`, ... each name a folder only under their full
    import path; a bare top-level name works only from a checkout's root by accident."""
    bare = sorted(target for target in imports_of(project_modules()[name])
                  if target.split(".")[0] in BARE
                  and target.split(".")[0] not in ("autograd_conformance", "tests", "tools"))
    assert not bare, f"{name} imports {bare} by a bare top-level name"


def test_the_checker_sees_imports():
    """What the tests below rely on: relative and deferred imports are resolved."""
    runner = imports_of(project_modules()["autograd_conformance.runner.watchdog"])
    assert {"autograd_conformance.harness.engines", "autograd_conformance.runner.evidence"} <= runner
    assert "autograd_conformance.runner" in imports_of(
        project_modules()["autograd_conformance.pytest_plugin"])
    assert module_name(ROOT / "suites" / "test_leaves.py") == "autograd_conformance.suites.test_leaves"


@pytest.mark.parametrize("name", sorted(name for name in project_modules()
                                        if name.startswith(LIBRARY)))
def test_the_library_never_imports_the_runner(name):
    """The library hears about the runner only through the listeners the runner installs
    (harness/script.py `listening`)."""
    found = sorted(target for target in imports_of(project_modules()[name])
                   if target.startswith(RUNNER_SIDE))
    assert not found, f"{name} imports the runner side: {found}"


@pytest.mark.parametrize("name", sorted(name for name in project_modules()
                                        if name.startswith(LIBRARY)))
def test_the_library_imports_only_itself_among_the_packages_modules(name):
    """Not the suites (the catalog is read as a resource), not the engines, not the runner."""
    found = sorted(target for target in imports_of(project_modules()[name])
                   if target.startswith("autograd_conformance") and not target.startswith(LIBRARY))
    assert not found, f"{name} imports {found}"


def test_the_entry_point_imports_nothing_heavy():
    """pytest loads the entry point in every run of an environment where the package is
    installed, a project's own tests included: it declares options and markers only; the runner,
    hypothesis, NumPy, Jinja2 and the engines come when a conformance run starts."""
    import subprocess
    probe = ("import sys, autograd_conformance.pytest_plugin; "
             "print(sorted({'hypothesis', 'numpy', 'jinja2', 'torch', "
             "'autograd_conformance.runner.plugin'} & set(sys.modules)))")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]", run.stdout


def _names_imported(name: str) -> set[str]:
    tree = ast.parse(project_modules()[name].read_text(encoding="utf-8"))
    return {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            for alias in node.names}


@pytest.mark.parametrize("name", sorted(name for name in project_modules()
                                        if name.startswith(REPORTS)))
def test_the_report_room_never_touches_an_engine(name):
    """A failure's graphs come drawn with its report (the runner reads them from the engine, with
    the library's harness/graphs.py), and the run's engines come described (runner/plugin.py
    `described_engines`): reports/ imports no engine, nothing that runs one, and no handle on one."""
    modules = sorted(target for target in imports_of(project_modules()[name])
                     if target.startswith(ENGINE_MODULES))
    names = sorted(_names_imported(name) & ENGINE_NAMES)
    assert not modules and not names, f"{name} reaches an engine: {modules + names}"


@pytest.mark.parametrize("name", sorted(name for name in project_modules()
                                        if name.startswith(REPORTS)))
def test_the_report_room_imports_absolutely_and_attaches_nothing(name):
    """reports/ reads what a test showed with the runner's one reader (runner/evidence.py `read`):
    it never writes a report's properties, so the runner (the baseline writer included) cannot
    come to depend on something only the report room attaches."""
    source = project_modules()[name].read_text(encoding="utf-8")
    relative = [node.module for node in ast.walk(ast.parse(source))
                if isinstance(node, ast.ImportFrom) and node.level]
    assert not relative, f"{name} imports relatively: {relative}"
    assert "user_properties" not in source and "setattr(" not in source, \
        f"{name} touches a report's properties"


@pytest.mark.parametrize("name", sorted(name for name in project_modules()
                                        if name.startswith(RUNNER)))
def test_the_runner_never_imports_the_report_room(name):
    """The entry point registers the report room beside the runner; evidence flows one way."""
    found = sorted(target for target in imports_of(project_modules()[name])
                   if target.startswith(REPORTS))
    assert not found, f"{name} imports the report room: {found}"


# A report property written under a literal name, `user_properties.append(("name", ...` or
# `user_properties += [("name", ...`: every name is one of runner/evidence.py's.
_LITERAL_PROPERTY = re.compile(r"user_properties\s*(?:\.append\(|\+=\s*\[)\s*\(\s*[\"']")


@pytest.mark.parametrize("name", sorted(name for name in project_modules()
                                        if name.startswith(("autograd_conformance", REPORTS))))
def test_every_property_a_report_carries_is_named_once(name):
    source = project_modules()[name].read_text(encoding="utf-8")
    assert not _LITERAL_PROPERTY.search(source), \
        f"{name} names a report property by a literal; name it in runner/evidence.py"


def test_the_entry_point_registers_the_report_room():
    assert "autograd_conformance.reports.plugin" in imports_of(
        project_modules()["autograd_conformance.pytest_plugin"])
