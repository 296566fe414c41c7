"""The shared strategies keep their promises (autograd_conformance/harness/strategies.py): what a test asks of
`programs` and `op_applications` is what every drawn example has, so no test needs to check
(or skip) a draw."""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from autograd_conformance.harness import counts
from autograd_conformance.harness.engines import load_engine
from autograd_conformance.harness.ops import MAGNITUDE_MAX, OPS
from autograd_conformance.harness.strategies import (
    ALL_OPS,
    EXTREMA,
    REACH,
    TIE_FEATURES,
    op_applications,
    programs,
    reach,
    recorded_intermediates,
)
from tests.support.run import run_pytest

ROOT = Path(__file__).resolve().parents[1]
TORCH = load_engine("torch")
SETTINGS = settings(max_examples=200, deadline=None)


def _exact_in(values: np.ndarray, dtype: str) -> bool:
    return bool(np.array_equal(values.astype(dtype).astype(np.float64), values))


@SETTINGS
@given(data=st.data())
def test_programs_keep_their_requires_grad_output_and_dtype_promises(data):
    requires_grad = data.draw(st.sampled_from(("some", "mixed", "all", "none")), label="mode")
    output = data.draw(st.sampled_from(("scalar", "any", "vector")), label="output")
    dtype = data.draw(st.sampled_from(("float32", "float64")), label="dtype")
    program = data.draw(programs(TORCH, requires_grad=requires_grad, output=output,
                                 dtype=dtype), label="program")
    used = [leaf for leaf in program.leaves if leaf.name in program.ancestors()]
    flags = [leaf.requires_grad for leaf in used]
    assert {"some": any(flags), "mixed": any(flags) and not all(flags), "all": all(flags),
            "none": not any(flags)}[requires_grad]
    size = int(np.prod(program.output_shape(), dtype=int))
    assert {"scalar": size == 1, "any": size >= 1, "vector": size > 1}[output]
    assert program.dtype == dtype and all(_exact_in(leaf.values, dtype)
                                          for leaf in program.leaves)


@SETTINGS
@given(data=st.data())
def test_every_node_is_in_its_op_s_domain_and_magnitude(data):
    program = data.draw(programs(TORCH, max_ops=8), label="program")
    values = program.evaluate()
    for node in program.nodes:
        inputs = [values[arg] for arg in node.args]
        assert OPS[node.op].domain(*inputs, node.param), node
        assert np.all(np.abs(values[node.name]) <= MAGNITUDE_MAX), node


@SETTINGS
@given(data=st.data())
def test_saves_tensors_and_candidates_are_honoured(data):
    saving = data.draw(programs(TORCH, saves_tensors=True), label="saving program")
    assert saving.saves_tensors()
    program = data.draw(programs(TORCH, candidates=recorded_intermediates), label="program")
    assert recorded_intermediates(program)


@settings(max_examples=20, deadline=None)
@given(data=st.data(), op=st.sampled_from(ALL_OPS + EXTREMA))
def test_op_applications_apply_their_op_once_to_leaves_that_require_grad(data, op):
    program = data.draw(op_applications(TORCH, op), label="program")
    [node] = program.nodes
    assert node.op == op and program.output == node.name
    assert all(leaf.requires_grad for leaf in program.leaves)
    assert OPS[op].domain(*(leaf.values for leaf in program.leaves), node.param)


def test_the_ci_profile_reaches_every_corner():
    """Under the `ci` profile, the programs of four tests (4 x 50 derandomized examples; a
    conformance run draws programs in about sixty) reach every corner of REACH: 0-D to 4-D
    tensors, broadcasting in every position and of either operand, reductions over every dim,
    non-square matmul, matrix-vector and dot products, negative bases, tensor exponents, repeated
    indices, long chains, fan-out. Each corner comes up in roughly 3.5% or more of the programs
    (measured on 3,000 random ones), so a single test's 50 examples meet most of them."""
    found = set()
    ci = settings.get_profile("ci")

    @settings(ci, max_examples=4 * ci.max_examples, database=None)
    @given(data=st.data())
    def draw(data):
        found.update(reach(data.draw(programs(TORCH), label="program")))

    draw()
    assert REACH <= found, f"not reached: {sorted(REACH - found)}"


def test_the_ci_profile_reaches_the_ties_of_max_and_min():
    """Under the `ci` profile, the programs of a test that asks for max, min, amax and amin (as
    VAL-1 does) stay in every node's domain (no near tie, see ops.TIE_MARGIN) and meet both tie
    rules: a gradient split evenly among tied extremes, and one sent to the index returned."""
    found = set()

    @settings(settings.get_profile("ci"), database=None)
    @given(data=st.data())
    def draw(data):
        program = data.draw(programs(TORCH, ops=ALL_OPS + EXTREMA), label="program")
        values = program.evaluate()
        for node in program.nodes:
            assert OPS[node.op].domain(*(values[arg] for arg in node.args), node.param), node
        found.update(reach(program, values))

    draw()
    assert set(TIE_FEATURES) <= found, f"not reached: {sorted(set(TIE_FEATURES) - found)}"


def _tests_that_draw_counts() -> list[str]:
    """The node IDs (without parameters) of the suites' tests that name a `Count`, directly or
    through a module-level helper of theirs that names one."""
    names = {count_name for count_name, value in vars(counts).items()
             if isinstance(value, counts.Count)}
    found = []
    for path in sorted((ROOT / "suites").glob("test_*.py")):
        functions = [node for node in ast.parse(path.read_text()).body
                     if isinstance(node, ast.FunctionDef)]
        drawing = set()
        for _ in range(2):  # helpers first, then the tests that call them
            drawing |= {function.name for function in functions
                        if {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
                        & (names | drawing)}
        found += [f"suites/{path.name}::{name}" for name in sorted(drawing)
                  if name.startswith("test_")]
    return found


def test_the_ci_profile_reaches_every_count_corner(tmp_path):
    """Every test that draws a count (autograd_conformance/harness/counts.py) draws its corner
    under the `ci` profile (3 or more hooks on one tensor, a tensor saved twice, three nested
    contexts, ...), and every count is drawn by some test: a bug that shows only past the second
    hook is met by the `ci` run. The tests run on torch, where each passes."""
    tests = _tests_that_draw_counts()
    probe = tmp_path / "probe.json"
    completed = run_pytest(*tests, "--engine", "torch", "-n", "0", "-q", "--no-report",
                           "-p", "tests.support.probe", env={"BROKEN_PROBE_OUT": str(probe)})
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    records = json.loads(probe.read_text())
    corners = {count.what: count.corner for count in counts.COUNTS}
    short = {record["nodeid"]: what for record in records
             for what, values in record["drawn"].items() if max(values) < corners[what]}
    assert not short, f"tests that never reach their count's corner under ci: {short}"
    drawn = {what for record in records for what in record["drawn"]}
    assert drawn == set(corners), f"counts no test draws: {sorted(set(corners) - drawn)}"


MAGIC_NUMBERS = '''"""A local module full of numbers in the ranges the suites draw from."""
FLOATS = (0.1234567, -1.9876543, 2.718281828, -0.5772156649, 1.4142135623, -2.6457513111)
INTEGERS = (2, 3, 5, 7, 11, 13)
'''
RECORD_PROGRAMS = '''"""Every program the suites draw, in order, appended to $PROGRAMS_LOG."""
import os

from autograd_conformance.harness import strategies

_reach = strategies.reach


def reach(program, *args, **kwargs):
    with open(os.environ["PROGRAMS_LOG"], "a") as log:
        log.write(repr(program) + "\\n")
    return _reach(program, *args, **kwargs)


strategies.reach = reach
'''


def test_a_derandomized_run_draws_the_same_examples_whatever_is_loaded(tmp_path):
    """Hypothesis draws some numbers from the constants of the local modules a process has
    loaded; the conformance plugin empties that pool (autograd_conformance/runner/plugin.py), so the `ci` profile
    draws the same programs with a module full of constants loaded as without it."""
    (tmp_path / "magic_numbers.py").write_text(MAGIC_NUMBERS)
    (tmp_path / "record_programs.py").write_text(RECORD_PROGRAMS)
    drawn = []
    for extra in ([], ["-p", "magic_numbers"]):
        log = tmp_path / f"programs-{len(drawn)}.log"
        environment = dict(os.environ, PROGRAMS_LOG=str(log),
                           PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
        completed = subprocess.run(
            [sys.executable, "-m", "pytest", "suites/test_leaves.py", "--engine", "reference",
             "--hypothesis-profile", "ci", "-n", "0", "-q", "-p", "no:cacheprovider",
             "--no-report", "-p", "record_programs", *extra],
            cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300)
        assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
        drawn.append(log.read_text().splitlines())
    assert len(drawn[0]) > 100
    assert drawn[0] == drawn[1]
