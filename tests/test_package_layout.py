"""The package layout a newcomer can follow: an import name is its folder path (only suites/,
reference/ and reports/ are installed under the package's name, as the design card fixes them at
the top), nothing is imported under a bare top-level folder name, and the library the suites are
written with (autograd_conformance/harness) never imports the pytest runner."""

import sys
import tomllib

import pytest

from tests.support.modules import MAPPED, ROOT, imports_of, module_name, project_modules

LIBRARY = "autograd_conformance.harness"
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
    assert {"autograd_conformance.harness.engines", "autograd_conformance.runner.baseline"} <= runner
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
