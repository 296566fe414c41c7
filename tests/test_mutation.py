"""tools/mutation: the mutator generates many one-site mutants of the reference engine, each
compiles, and an installed mutant changes gradients in its own process only.

A full mutation run takes many minutes (`python -m tools.mutation run`); the one run here is
limited to one family of tests, the other subprocesses import only NumPy and the reference engine.
"""

import ast
import copy
import json
import os
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from tools.mutation import cache as mutation_cache
from tools.mutation import executed
from tools.mutation.cache import Cache
from tools.mutation.mutants import MUTANT_VARIABLE, _mutants_of, generate, node_at, replace_at
from tools.mutation.results import load_equivalent, summarise
from tools.mutation.runner import TANGENT_LINE, covering_tests
from tools.mutation.targets import ITERATION_FILES, Target, _rules, targets

ROOT = Path(__file__).resolve().parents[1]
MUL_SIGN_FLIP = "ops/arithmetic.py:MulBackward0.backward:sign_flip:1"


@pytest.fixture(scope="module")
def mutants():
    return generate()


@pytest.fixture(scope="module")
def originals():
    return {(target.file, target.qualname): target.node for target in targets()}


def test_hundreds_of_mutants_from_many_operators(mutants):
    per_operator = Counter(mutant.operator for mutant in mutants)
    assert len(mutants) > 100
    assert len(per_operator) >= 10, per_operator
    assert {"sign_flip", "drop_term", "swap_operands", "remove_transpose", "skip_sum_to",
            "off_by_one", "float32", "accumulate_to_assign", "comparison_flip",
            "constant_change", "reduction_axis"} <= set(per_operator)
    assert len({mutant.id for mutant in mutants}) == len(mutants)
    files = {mutant.file for mutant in mutants}
    assert {"graph.py", "walk.py", "autograd/gradients.py", "ops/common.py"} <= files


def test_only_function_bodies_are_mutated(mutants, originals):
    """Targets are backward formulas and plumbing; signatures and docstrings stay as they are."""
    assert ("ops/common.py", "sum_to") in originals
    assert not any(qualname.endswith("._modified_message") for _, qualname in originals)
    for mutant in mutants:
        original = originals[(mutant.file, mutant.qualname)]
        assert ast.dump(mutant.tree.args) == ast.dump(original.args)
        assert mutant.path[0][0] == "body"


def test_each_mutant_compiles_and_changes_exactly_one_site(mutants, originals):
    for mutant in mutants:
        compile(ast.parse(mutant.source), mutant.id, "exec")
        assert ast.unparse(ast.parse(mutant.source)) == mutant.source
        original = originals[(mutant.file, mutant.qualname)]
        assert mutant.source != ast.unparse(original), mutant.id
        restored = copy.deepcopy(mutant.tree)
        replace_at(restored, mutant.path, node_at(original, mutant.path))
        assert ast.dump(restored) == ast.dump(original), f"{mutant.id} changes more than one site"


def test_a_known_mutant_reads_as_its_change(mutants):
    mutant = next(mutant for mutant in mutants if mutant.id == MUL_SIGN_FLIP)
    assert mutant.diff == ("sum_to(grad * conj(b), self.metas[0])  ->  "
                           "-sum_to(grad * conj(b), self.metas[0])")
    assert mutant.site == f"reference/ops/arithmetic.py:{mutant.line}"


PROGRAM = """
import tools.mutation.engine as ag
x = ag.tensor([2.0, 3.0], requires_grad=True)
(x * 3.0).sum().backward()
print("mul", None if x.grad is None else x.grad.tolist())
x = ag.tensor([2.0, 3.0], requires_grad=True)
y = x[[1, 0]]
g, = ag.autograd.grad((y * y).sum(), x, create_graph=True)
print("index", g.tolist())
"""


def _run_engine(tmp_path, mutant, program=PROGRAM):
    """`program` in a new process against the engine with `mutant` installed (None: the control),
    as in the process of a mutant's test that starts the engine afresh."""
    tmp_path.mkdir(exist_ok=True)
    environment = {name: value for name, value in os.environ.items() if name != MUTANT_VARIABLE}
    environment["PYTHONPATH"] = str(ROOT)
    if mutant is not None:
        environment[MUTANT_VARIABLE] = mutant.id
    completed = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, env=environment,
                               capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.splitlines()


def test_an_installed_mutant_changes_the_gradient_in_its_own_process(tmp_path, mutants):
    by_id = {mutant.id: mutant for mutant in mutants}
    assert _run_engine(tmp_path / "control", None) == ["mul [3.0, 3.0]", "index [4.0, 6.0]"]
    assert _run_engine(tmp_path / "mul", by_id[MUL_SIGN_FLIP])[0] == "mul [-3.0, -3.0]"
    # a method that calls super() (IndexBackward0.backward) compiles and runs mutated
    index = by_id["ops/indexing.py:IndexBackward0.backward:float32:1"]
    assert _run_engine(tmp_path / "index", index) == ["mul [3.0, 3.0]", "index [4.0, 6.0]"]


def test_a_replaced_function_is_replaced_under_every_name(tmp_path, mutants):
    """`gradients.backward` is `methods._backward` too: both names see the mutant."""
    mutant = next(mutant for mutant in mutants if mutant.qualname == "backward"
                  and mutant.file == "autograd/gradients.py"
                  and mutant.operator == "delete_statement" and "run_backward" in mutant.before)
    assert _run_engine(tmp_path, mutant)[0] == "mul None"
    assert node_at(mutant.tree, mutant.path).__class__ is ast.Pass


def test_a_replaced_function_is_replaced_as_a_property_s_getter(tmp_path, mutants):
    """Tensor.real is property(ops.real): the attribute answers with the mutant too."""
    mutant = next(mutant for mutant in mutants
                  if mutant.id == "ops/complex_numbers.py:real:sign_flip:1")
    program = ("import tools.mutation.engine as ag\n"
               "print(ag.tensor([2.0, -3.0]).real.tolist())\n")
    assert _run_engine(tmp_path / "control", None, program) == ["[2.0, -3.0]"]
    assert _run_engine(tmp_path / "real", mutant, program) == ["[-2.0, 3.0]"]


def test_a_mutant_runs_the_tests_that_reached_its_statement(mutants, originals):
    """`run` gives a mutant only the tests whose control run executed its site, quickest first,
    and skips (as `uncovered`) the mutants whose site no test executed."""
    for mutant in mutants:
        original = originals[(mutant.file, mutant.qualname)]
        first, last = mutant.lines
        assert original.lineno <= first <= last <= original.end_lineno, mutant.id
    mutant = next(mutant for mutant in mutants if mutant.id == MUL_SIGN_FLIP)
    first, last = mutant.lines
    assert first <= mutant.line <= last
    coverage = {"slow": {"seconds": 2.0, "lines": {mutant.file: [last]}},
                "quick": {"seconds": 0.5, "lines": {mutant.file: [first, 1]}},
                "elsewhere": {"seconds": 0.1, "lines": {mutant.file: [first - 1, last + 1],
                                                        "graph.py": [first]}}}
    assert covering_tests(mutant, coverage) == ["quick", "slow"]
    assert covering_tests(mutant, {"elsewhere": coverage["elsewhere"]}) == []
    coverage["child process"] = {"seconds": 1.0, "lines": None}  # a fresh_process test
    assert covering_tests(mutant, coverage) == ["quick", "child process", "slow"]


def test_forward_mode_rules_hooks_and_anomaly_mode_are_mutated(mutants, originals):
    """A forward (`mul`) is mutated inside the rules it passes to jvp only, its forward values
    left alone; such a mutant runs only the tests that computed a tangent (ran dual.jvp's rules)."""
    assert {"dual.py", "autograd/forward_ad.py", "tensor_hooks.py", "node_hooks.py",
            "module_hooks.py", "anomaly.py"} <= {mutant.file for mutant in mutants}
    forward = [mutant for mutant in mutants if mutant.file == "ops/arithmetic.py"
               and mutant.qualname == "mul"]
    assert forward and all(mutant.area == "forward" for mutant in forward)
    assert {mutant.diff for mutant in forward} >= {"da * value(b)  ->  -(da * value(b))",
                                                   "value(a) * db  ->  db"}

    def without_rules(func):
        """The def with the bodies of the rules it passes to jvp blanked out."""
        func = copy.deepcopy(func)
        for rule in _rules(func):
            rule.body = ast.Constant(None)
        return ast.dump(func)

    original = originals[("ops/arithmetic.py", "mul")]
    assert len(_rules(original)) == 2
    for mutant in forward:
        assert without_rules(mutant.tree) == without_rules(original), mutant.id
    line = forward[0].lines[0]
    coverage = {"reverse": {"seconds": 0.1, "lines": {"ops/arithmetic.py": [line]}},
                "tangents": {"seconds": 0.2, "lines": {"ops/arithmetic.py": [line],
                                                       "dual.py": [TANGENT_LINE]}}}
    assert covering_tests(forward[0], coverage) == ["tangents"]


def test_the_equivalent_list_names_generated_mutants_with_reasons(mutants):
    """Each listed ID still names the change it was judged on (IDs count a function's mutants
    per operator, so editing the function or the operators can shift them)."""
    listed = load_equivalent(with_diffs=True)
    by_id = {mutant.id: mutant for mutant in mutants}
    assert set(listed) <= set(by_id), sorted(set(listed) - set(by_id))
    for mutant_id, (change, reason) in listed.items():
        assert by_id[mutant_id].diff == change, f"{mutant_id} is now {by_id[mutant_id].diff}"
        assert reason, mutant_id


def test_the_score_leaves_equivalent_mutants_out():
    rows = [{"id": "a", "outcome": "killed"}, {"id": "b", "outcome": "timeout"},
            {"id": "c", "outcome": "survived"}, {"id": "d", "outcome": "survived"},
            {"id": "e", "outcome": "not run"}]
    summary = summarise(rows, {"d": "same values", "a": "wrongly listed"})
    assert summary["equivalent"] == 1 and summary["survived"] == 1 and summary["judged"] == 4
    assert summary["score"] == pytest.approx(2 / 3, abs=1e-4)
    assert rows[3]["reason"] == "same values" and rows[0]["outcome"] == "killed"


def test_a_run_judges_mutants_in_one_session_against_the_control(tmp_path):
    """`run` end to end on one family of tests (-k): the control passes them, the sign flip in
    mul's backward is killed by the mul test, and a forward-mode mutant, which no test reached
    in the control, is uncovered. The verdict is stored with what the run executed, and a second
    run reuses it."""
    tangent = "dual.py:tangent:negate_condition:1"
    command = [sys.executable, "-m", "tools.mutation", "run", MUL_SIGN_FLIP, tangent, "-j", "2",
               "-k", "test_mul_div", "--markdown", str(tmp_path / "results.md"),
               "--json", str(tmp_path / "results.json"), "--cache", str(tmp_path / "cache.json")]
    completed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert "control (unmutated engine): survived" in completed.stdout, completed.stdout
    assert completed.returncode == 1, completed.stdout + completed.stderr  # 1: not all killed
    results = json.loads((tmp_path / "results.json").read_text())
    rows = {row["id"]: row for row in results["mutants"]}
    assert rows[MUL_SIGN_FLIP]["outcome"] == "killed"
    assert rows[MUL_SIGN_FLIP]["killed_by"] == ("suites/test_op_grads.py::"
                                                "test_mul_div[mutant_engine-mul]")
    assert rows[tangent]["outcome"] == "uncovered" and rows[tangent]["tests"] == 0
    assert results["summary"]["killed"] == 1 and results["summary"]["uncovered"] == 1
    assert results["coverage"] and "-k test_mul_div" in results["session"]
    assert MUL_SIGN_FLIP in (tmp_path / "results.md").read_text()
    stored = Cache(tmp_path / "cache.json", "").runs
    killer = stored[MUL_SIGN_FLIP]["tests"]
    assert list(killer) == [rows[MUL_SIGN_FLIP]["killed_by"]]
    functions = killer[rows[MUL_SIGN_FLIP]["killed_by"]]["functions"]
    assert {"ops/arithmetic.py:mul", "walk.py:run_backward"} <= set(functions)
    assert "ops/arithmetic.py:MulBackward0.backward" not in functions  # the mutant's def ran
    control = stored[mutation_cache.CONTROL]["tests"]
    assert len(control) == 2 and all(test["outcome"] == "passed" for test in control.values())
    assert "ops/arithmetic.py:MulBackward0.backward" in control[rows[MUL_SIGN_FLIP]["killed_by"]][
        "functions"]
    again = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert "(0 of 2 tests run" in again.stdout, again.stdout + again.stderr  # the control's too
    assert "2 of 2 mutants need no run (1 reused" in again.stdout, again.stdout + again.stderr
    rows = {row["id"]: row for row in json.loads((tmp_path / "results.json").read_text())["mutants"]}
    assert rows[MUL_SIGN_FLIP]["outcome"] == "killed" and rows[MUL_SIGN_FLIP]["cached"]
    assert "Incremental: 1 of 2 verdicts reused" in (tmp_path / "results.md").read_text()


# ----- incremental runs: stored verdicts and what invalidates them ------------------------------
def test_the_engine_is_imported_recording_which_functions_run():
    """Each outermost function adds its name when it runs, after its docstring (which stays the
    docstring), on its first statement's line (coverage and tracebacks stay as they were)."""
    tree = ast.parse(textwrap.dedent("""
        def f(x):
            "Doc."
            return g(x) + 1

        class C:
            def m(self):
                def inner():
                    return 2
                return inner()
        def g(x):
            return x
        """))
    executed._instrument(tree, "ops/small.py")
    namespace = {"__mutation_ran__": set()}
    exec(compile(tree, "small.py", "exec"), namespace)
    assert namespace["f"](1) == 2 and namespace["f"].__doc__ == "Doc."
    assert namespace["__mutation_ran__"] == {"ops/small.py:f", "ops/small.py:g"}
    assert namespace["C"]().m() == 2
    assert "ops/small.py:C.m" in namespace["__mutation_ran__"]
    assert tree.body[0].body[1].lineno == 4 and tree.body[0].body[1].value.func.attr == "add"


class _Args:
    keyword, test_timeout, timeout = "test_mul_div", 30.0, 300.0


TESTS = ("suites/test_op_grads.py::mul", "suites/test_values.py::mul", "suites/test_graph.py::mul")
MUL = ["ops/arithmetic.py:mul", "ops/arithmetic.py:MulBackward0.backward", "walk.py:run_backward"]
ADD = ["ops/arithmetic.py:add", "ops/arithmetic.py:AddBackward0.backward", "walk.py:run_backward"]


@pytest.fixture
def stored(tmp_path, mutants, monkeypatch):
    """A cache holding what three tests did under a killed and a surviving mutant of mul's
    backward, and `edit(name)`, which changes the source of one function of reference/, a test
    module or a test's entry in names.toml, as the cache sees it. The first two tests execute
    mul, the third add; the killed mutant's run failed its second test."""
    functions, skeleton = executed.reference_sources()
    functions, modules, names = dict(functions), {}, {}
    monkeypatch.setattr(executed, "reference_sources", lambda: (functions, skeleton))
    monkeypatch.setattr(mutation_cache, "_module", lambda path: modules.get(path, "unchanged"))
    monkeypatch.setattr(mutation_cache, "_names_entry", lambda nodeid: names.get(nodeid))

    def edit(name):
        if name.startswith("suites/") and "::" in name:
            names[name] = "edited"
        elif name.startswith("suites/"):
            modules[name] = "edited"
        else:
            functions[name] = "edited"

    by_id = {mutant.id: mutant for mutant in mutants}
    killed, survivor = by_id[MUL_SIGN_FLIP], by_id["ops/arithmetic.py:MulBackward0.backward:float32:1"]
    cache = _cache(tmp_path)
    ran = [{"nodeid": TESTS[0], "outcome": "passed", "functions": MUL},
           {"nodeid": TESTS[1], "outcome": "failed", "functions": MUL[:1]},
           {"nodeid": TESTS[2], "outcome": "passed", "functions": ADD}]
    cache.store(killed, {"outcome": "killed", "seconds": 1.0, "killed_by": TESTS[1]}, {}, ran[:2])
    cache.store(survivor, {"outcome": "survived", "seconds": 2.0, "killed_by": None}, {},
                [ran[0], {**ran[1], "outcome": "passed"}, ran[2]])
    cache.store(None, {"outcome": "survived", "seconds": 3.0, "killed_by": None}, {},
                [{**test, "outcome": "passed"} for test in ran])
    cache.store(by_id["ops/arithmetic.py:MulBackward0.backward:sign_flip:2"],
                {"outcome": "error", "seconds": 0.0, "killed_by": None}, {}, ran)
    cache.save()
    return killed, survivor, edit


def _cache(tmp_path, args=_Args, **options) -> Cache:
    cache = Cache(tmp_path / "cache.json", mutation_cache.harness(args), **options)
    cache.begin(["tensor.py:init"])
    return cache


def _plans(tmp_path, killed, survivor, tests=TESTS, **options):
    """The plans of the control, the killed mutant and the survivor, from the stored cache."""
    cache = _cache(tmp_path, **options)
    return [cache.plan(mutant, list(tests), tests) for mutant in (None, killed, survivor)]


def _reused(plans) -> list[bool]:
    return [plan.verdict is not None for plan in plans]


def test_an_unchanged_verdict_is_reused_and_fresh_reuses_none(tmp_path, stored):
    killed, survivor, _ = stored
    control, dead, alive = _plans(tmp_path, killed, survivor)
    assert control.verdict["outcome"] == alive.verdict["outcome"] == "survived"
    assert dead.verdict["outcome"] == "killed" and dead.verdict["killed_by"] == TESTS[1]
    assert set(_cache(tmp_path).runs) == {mutation_cache.CONTROL, killed.id, survivor.id}  # no error
    assert _reused(_plans(tmp_path, killed, survivor, fresh=True)) == [False, False, False]


def test_a_changed_function_reruns_only_the_tests_that_executed_it(tmp_path, stored):
    """The control and the survivor run again the tests that executed the changed function and
    keep the others' outcomes; the killed mutant stays killed while its killer did not execute
    it (an earlier test that did passed, and passing decides nothing)."""
    killed, survivor, edit = stored
    edit("graph.py:Node.save")  # executed by no test
    assert _reused(_plans(tmp_path, killed, survivor)) == [True, True, True]
    edit("ops/arithmetic.py:AddBackward0.backward")  # executed by the third test only
    control, dead, alive = _plans(tmp_path, killed, survivor)
    assert control.run == alive.run == [TESTS[2]] and dead.verdict["killed_by"] == TESTS[1]
    assert set(alive.kept) == set(TESTS[:2])
    edit("ops/arithmetic.py:mul")  # executed by all but the third; the killer among them
    control, dead, alive = _plans(tmp_path, killed, survivor)
    assert control.run == alive.run == list(TESTS) and not dead.kept
    assert dead.run == list(TESTS) and dead.stale == TESTS[1]  # its old killer goes first


def test_the_session_s_code_and_code_that_keeps_state_count_for_every_test(tmp_path, stored):
    killed, survivor, _ = stored
    cache = _cache(tmp_path)
    cache.begin(["tensor.py:init", "graph.py:Node.save"])  # the session executed more
    assert not any(cache.plan(mutant, list(TESTS), TESTS).verdict
                   for mutant in (None, killed, survivor))
    kept = textwrap.dedent("""
        @functools.lru_cache(maxsize=None)
        def cached(x):
            return x
        def warn_once():
            global _warned
            _warned = True
        def plain(x):
            return x
        """)
    assert [executed.keeps_state(func) for func in ast.parse(kept).body] == [True, True, False]


def test_the_mutated_function_s_own_change_reruns_its_mutants(tmp_path, stored):
    killed, survivor, edit = stored
    edit("ops/arithmetic.py:MulBackward0.backward")
    control, dead, alive = _plans(tmp_path, killed, survivor)
    assert not dead.kept and not alive.kept and control.run == [TESTS[0]]


def test_a_changed_test_module_names_entry_or_option_invalidates_its_tests(tmp_path, stored):
    killed, survivor, edit = stored
    edit("suites/test_values.py")  # the killer's module
    control, dead, alive = _plans(tmp_path, killed, survivor)
    assert control.run == alive.run == [TESTS[1]] and dead.stale == TESTS[1]
    edit("suites/test_graph.py::mul")  # its entry in names.toml, which may skip it
    assert _plans(tmp_path, killed, survivor)[2].run == [TESTS[1], TESTS[2]]
    class Other(_Args):
        keyword = None
    assert _reused(_plans(tmp_path, killed, survivor, args=Other)) == [False, False, False]


def test_a_listed_equivalent_survivor_reruns_only_when_its_function_changes(tmp_path, stored):
    """Its run could only show the list wrong (a kill), never a survivor the score misses."""
    killed, survivor, edit = stored
    edit("walk.py:run_backward")  # executed by every test it ran
    cache = _cache(tmp_path)
    assert cache.plan(survivor, list(TESTS), TESTS, equivalent=True).verdict["listed"]
    assert not cache.plan(survivor, list(TESTS), TESTS).verdict
    judged = cache.plan(killed, list(TESTS), TESTS, equivalent=True).verdict  # as any other
    assert judged["outcome"] == "killed" and "listed" not in judged
    edit("ops/arithmetic.py:MulBackward0.backward")  # its own function
    assert not _cache(tmp_path).plan(survivor, list(TESTS), TESTS, equivalent=True).verdict


def test_a_survivor_runs_the_tests_that_reach_it_anew(tmp_path, stored):
    """A killed mutant stays killed by the test that killed it; a survivor must face every test
    that now covers its site, and only those; a stored outcome of a test no longer collected
    counts for nothing."""
    killed, survivor, _ = stored
    cache = _cache(tmp_path)
    more = [*TESTS, "suites/test_graph.py::new"]
    assert cache.plan(killed, more, more).verdict
    assert cache.plan(survivor, more, more).run == ["suites/test_graph.py::new"]
    assert cache.plan(survivor, list(TESTS[:2]), TESTS[:2]).verdict  # no longer covered: fine
    collected = [TESTS[0], TESTS[2]]  # the killer is gone: the tests it left run
    assert cache.plan(killed, collected, collected).run == [TESTS[2]]
    assert list(cache.plan(killed, collected, collected).kept) == [TESTS[0]]


# ----- the plumbing operators: loops that iterate wrongly ----------------------------------------
PLUMBING_OPERATORS = ("reverse_order", "first_only", "drop_last", "swap_first_two", "dedupe",
                      "pack_once")


def _small_target(source: str) -> Target:
    """A function of `source` mutated as a plumbing function of walk.py would be."""
    func = ast.parse(textwrap.dedent(source)).body[0]
    return Target("walk.py", "autograd_conformance.reference.walk", func.name, func, "plumbing")


def _plumbing_mutants(source: str) -> dict[str, list]:
    """{operator: [(change, mutated function), ...]} of the plumbing operators on `source`."""
    found = {}
    for mutant in _mutants_of(_small_target(source)):
        if mutant.operator in PLUMBING_OPERATORS:
            namespace = {}
            exec(mutant.source, namespace)
            found.setdefault(mutant.operator, []).append((mutant.diff, namespace[mutant.qualname]))
    return found


def test_the_plumbing_operators_change_how_a_hook_loop_iterates():
    """Hooks h1, h2, h1 (registered twice), h3: each operator's loop runs another sequence."""
    found = _plumbing_mutants("""
        def run(hooks, ran):
            for hook in hooks:
                hook(ran)
        """)
    hooks = [lambda ran, k=k: ran.append(k) for k in (1, 2, 3)]
    expected = {"reverse_order": ("hooks  ->  reversed(list(hooks))", [3, 1, 2, 1]),
                "first_only": ("hooks  ->  list(hooks)[:1]", [1]),
                "drop_last": ("hooks  ->  list(hooks)[:-1]", [1, 2, 1]),
                "swap_first_two": ("hooks  ->  swap_first_two(list(hooks))", [2, 1, 1, 3]),
                "dedupe": ("hooks  ->  unique(hooks)", [1, 2, 3])}
    assert set(found) == set(expected)
    for operator, (change, order) in expected.items():
        [(diff, run)] = found[operator]
        ran = []
        run([hooks[0], hooks[1], hooks[0], hooks[2]], ran)
        assert (diff, ran) == (change, order), operator


def test_a_pack_in_a_comprehension_is_made_once_per_distinct_tensor():
    """x * x saves x twice: pack_once packs it once and saves the one packed value twice."""
    found = _plumbing_mutants("""
        def save(hooks, values):
            return tuple(Packed(hooks, value) for value in values)
        """)
    [(diff, save)] = found["pack_once"]
    assert diff.endswith("for _memo in [{}] for value in values)")
    packed = []
    save.__globals__["Packed"] = lambda hooks, value: packed.append(value) or len(packed)
    x, y = object(), object()
    assert save(None, [x, x, y]) == (1, 1, 2) and packed == [x, y]
    assert save(None, [x]) == (3,)  # a new memo per call


def test_dedupe_compares_the_elements_of_the_enumerated_or_first_zipped_sequence():
    """An input listed twice is handled once; None and numbers, which Python shares, stay."""
    found = _plumbing_mutants("""
        def results(inputs, edges):
            return [(i, edge) for i, (t, edge) in enumerate(zip(inputs, edges))]
        """)
    [(diff, results)] = found["dedupe"]
    assert diff == ("enumerate(zip(inputs, edges))  ->  "
                    "unique(enumerate(zip(inputs, edges)), lambda v: v[1][0])")
    x, y = object(), object()
    assert results([x, x, y, None, None], "abcde") == [(0, "a"), (2, "c"), (3, "d"), (4, "e")]
    # no swap_first_two: a comprehension, not a loop
    assert set(found) == {"reverse_order", "first_only", "drop_last", "dedupe"}


def test_iterations_whose_order_or_repeats_change_nothing_get_fewer_operators():
    """range() and literals are left alone; a validation loop, any() and a set only lose
    elements; a sum and a comprehension that ignores its elements lose or repeat them; the
    tuples a function built are never one object twice."""
    source = """
        def checks(xs, n):
            for i in range(n):
                xs.append(i)
            for x in xs:
                if x is None:
                    raise ValueError
            pairs = [(x, 1) for x in xs]
            found = any(x is n for x in xs)
            distinct = {x for x in xs}
            total = sum(x for x in xs)
            zeros = [0 for _ in xs]
            firsts = [p[0] for p in pairs]
            literal = [x for x in (n, n)]
        """
    per_line = {}
    for mutant in _mutants_of(_small_target(source)):
        if mutant.operator in PLUMBING_OPERATORS:
            per_line.setdefault(mutant.line - mutant.def_line, set()).add(mutant.operator)
    shrinking = {"first_only", "drop_last"}
    assert per_line == {3: shrinking,                                   # validation loop
                        6: shrinking | {"reverse_order", "dedupe"},     # a list by position
                        7: shrinking, 8: shrinking,                     # any(), a set
                        9: shrinking | {"dedupe"}, 10: shrinking | {"dedupe"},  # sum, `_`
                        11: shrinking | {"reverse_order"}}              # built tuples


def test_the_plumbing_operators_make_a_few_hundred_mutants_in_the_plumbing_only(mutants):
    """Loops of the walk, hooks, saved tensors, custom Functions, the functional API and forward
    mode; each function gets a few dozen at most, and the known hook loops each of the five."""
    plumbing = [mutant for mutant in mutants if mutant.operator in PLUMBING_OPERATORS]
    assert 100 <= len(plumbing) <= 300, len(plumbing)
    assert {mutant.file for mutant in plumbing} <= set(ITERATION_FILES)
    per_function = Counter((mutant.file, mutant.qualname) for mutant in plumbing)
    assert max(per_function.values()) <= 30, per_function.most_common(3)
    for function in ("walk.py:_run_tensor_hooks", "graph.py:accumulate_into",
                     "node_hooks.py:call_prehooks", "node_hooks.py:call_posthooks",
                     "module_hooks.py:_run"):
        assert {mutant.operator for mutant in plumbing
                if f"{mutant.file}:{mutant.qualname}" == function} == set(PLUMBING_OPERATORS) - {
            "pack_once"}, function
    assert [mutant.id for mutant in plumbing if mutant.operator == "pack_once"] == [
        "graph.py:Node.save:pack_once:1"]
