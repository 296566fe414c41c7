"""The suite as an installed package: a wheel of the checkout installs everything under
`autograd_conformance` (no generic top-level module), and in a fresh environment the
`autograd-conformance` command runs the suites from an empty directory, with file options as
absolute or relative paths, in the `--opt PATH` and `--opt=PATH` forms. In a checkout, a file
outside it given in the space form works too (with the options registered only by conftest.py,
pytest rejected every option of the suite as 'unrecognized arguments')."""

import json
import shutil
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import hypothesis
import pytest

from tests.support.run import ROOT, clean_environment, run_pytest

SELECTION = ("--engine", "torch", "--hypothesis-profile", "ci",
             "--behaviour", "LEAF-1", "--behaviour", "LEAF-2")
LEAF_1_TEST = "suites/test_leaves.py::test_created_tensors_are_leaves"
BASELINE = f"{LEAF_1_TEST}  # listed, so that a skipped test shows the baseline was read\n"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel of the checkout, built from a copy (pip builds in the source tree) without build
    isolation (nothing is downloaded)."""
    source = tmp_path_factory.mktemp("source") / "checkout"
    skip = shutil.ignore_patterns(".git", ".tox", "build", "*.egg-info", "__pycache__",
                                  ".hypothesis", "tests")

    def not_source(directory, names):  # nor a venv, nor the output of conformance runs in reports/
        left_out = {name for name in names if Path(directory, name, "pyvenv.cfg").exists()
                    or (Path(directory).name == "reports"
                        and name.endswith((".html", ".json", ".xml", ".png")))}
        return skip(directory, names) | left_out

    shutil.copytree(ROOT, source, ignore=not_source)
    out = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                            "--wheel-dir", str(out), str(source)],
                           capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    [built] = out.glob("autograd_conformance-*.whl")
    return built


@pytest.fixture(scope="module")
def environment(wheel, tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel installed; it sees the packages of the
    environment running these tests (torch, pytest, hypothesis), so that nothing is downloaded.

    Not `system_site_packages=True`: a venv is always built on the base interpreter
    (`sys._base_executable`), so that would give the base's packages, not those of a venv or tox
    environment running the tests (whose hypothesis may be another release, which stops the
    command). A .pth file adds the running interpreter's site directories instead, the same in a
    base Python, a venv or conda; `site.addsitedir` also reads their .pth files, as Python does."""
    where = tmp_path_factory.mktemp("venv")
    venv.create(where, with_pip=False)
    site_dirs = site.getsitepackages()
    if site.ENABLE_USER_SITE:
        site_dirs.insert(0, site.getusersitepackages())
    [site_packages] = where.glob("lib/python*/site-packages")
    (site_packages / "running-environment.pth").write_text(
        "".join(f"import site; site.addsitedir({path!r})\n" for path in site_dirs),
        encoding="utf-8")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(where / "bin" / "python"),
                              "install", "--no-deps", "--no-index", "--force-reinstall", str(wheel)],
                             capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    seen = run_in(where, where / "bin" / "python", "-c",  # the hypothesis running these tests
                  "import hypothesis; print(hypothesis.__file__)")
    assert seen.stdout.strip() == hypothesis.__file__, seen.stdout + seen.stderr
    return where


def run_in(directory: Path, *command) -> subprocess.CompletedProcess:
    """`command` without PYTHONPATH, which could put a checkout's package before the wheel's."""
    env = clean_environment()
    env.pop("PYTHONPATH", None)
    return subprocess.run([str(part) for part in command], cwd=directory, capture_output=True,
                          text=True, timeout=600, env=env)


def outcomes(json_report: Path) -> dict[str, str]:
    """Test name and engine -> outcome, from a run's JSON results."""
    tests = json.loads(json_report.read_text(encoding="utf-8"))["tests"]
    return {test["nodeid"].split("::", 1)[1]: test["outcome"] for test in tests}


def assert_baselined_run(run, json_report: Path) -> None:
    assert run.returncode == 0, run.stdout + run.stderr
    seen = outcomes(json_report)
    assert seen.pop("test_created_tensors_are_leaves[torch]") == "skipped"  # the baseline's test
    assert seen and set(seen.values()) == {"passed"}, seen


def test_the_wheel_installs_everything_under_one_package_name(wheel):
    with zipfile.ZipFile(wheel) as archive:
        [record] = [name for name in archive.namelist() if name.endswith(".dist-info/RECORD")]
        files = [line.split(",")[0] for line in archive.read(record).decode().splitlines()]
        entry_points = archive.read(record.replace("RECORD", "entry_points.txt")).decode()
    assert {name.split("/")[0] for name in files if ".dist-info/" not in name} == \
        {"autograd_conformance"}
    for path in ("cli.py", "pytest.ini", "pytest_plugin.py", "suites/catalog.toml",
                 "suites/names.toml", "reports/html.py", "reports/templates/report.html.j2",
                 "reports/templates/report.css", "reports/templates/report.js",
                 "reports/templates/dashboard.html.j2",
                 "suites/test_leaves.py", "reference/tensor.py", "reference/autograd/functional.py",
                 "reference/ops/arithmetic.py",
                 "adapters/torch_adapter.py", "adapters/mygrad_adapter.py"):
        assert f"autograd_conformance/{path}" in files
    assert "[pytest11]\nautograd_conformance = autograd_conformance.pytest_plugin" in \
        entry_points
    assert "autograd-conformance = autograd_conformance.cli:main" in entry_points


def test_the_command_runs_from_an_empty_directory_with_absolute_paths_in_the_space_form(
        environment, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    baseline, written = tmp_path / "baseline.txt", tmp_path / "written.txt"
    baseline.write_text(BASELINE, encoding="utf-8")
    report = tmp_path / "out" / "conformance.html"
    run = run_in(empty, environment / "bin" / "autograd-conformance", *SELECTION,
                 "--baseline", baseline, "--baseline-mode", "skip", "--write-baseline", written,
                 "--report", report)
    assert_baselined_run(run, report.with_suffix(".json"))
    assert f"rootdir: {environment}" in run.stdout  # the installed suites ran, not the checkout's
    assert "PytestAssertRewriteWarning" not in run.stdout
    assert "<!DOCTYPE html>" in report.read_text(encoding="utf-8")
    assert f"{LEAF_1_TEST}[torch]  # not run (--baseline-mode skip)" in written.read_text()
    assert not (empty / "reports").exists()


def test_the_command_takes_relative_paths_in_the_equals_form_and_ignores_the_directory_config(
        environment, tmp_path):
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "baseline.txt").write_text(BASELINE, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = --no-such-option\n")
    run = run_in(tmp_path, environment / "bin" / "python", "-m", "autograd_conformance",
                 *SELECTION, "--baseline=ci/baseline.txt", "--baseline-mode=skip",
                 "--report=out/r.html", "--junitxml=out/junit.xml")
    assert_baselined_run(run, tmp_path / "out" / "r.json")
    assert (tmp_path / "out" / "r.html").is_file()
    assert 'name="engine" value="torch"' in (tmp_path / "out" / "junit.xml").read_text()


def test_pytest_pyargs_runs_the_installed_suites_and_reports_in_the_working_directory(
        environment, tmp_path):
    (tmp_path / "baseline.txt").write_text(BASELINE, encoding="utf-8")
    run = run_in(tmp_path, environment / "bin" / "python", "-m", "pytest",
                 "--pyargs", "autograd_conformance.suites", *SELECTION,
                 "--baseline", "baseline.txt", "--baseline-mode", "skip")
    assert_baselined_run(run, tmp_path / "reports" / "conformance.json")
    assert (tmp_path / "reports" / "conformance.html").is_file()


def test_file_options_outside_the_checkout_work_in_the_space_form_in_a_checkout(tmp_path):
    baseline = tmp_path / "mine" / "baseline.txt"
    baseline.parent.mkdir()
    baseline.write_text(BASELINE, encoding="utf-8")
    report = tmp_path / "out" / "conformance.html"
    run = run_pytest(*SELECTION, "--baseline", str(baseline), "--baseline-mode", "skip",
                     "--report", str(report))
    assert_baselined_run(run, report.with_suffix(".json"))
