"""autograd_conformance/harness/script.py: a test's steps run on the engine and print as a
self-checking torch script."""

import dataclasses
import types

import numpy as np
import pytest
import torch

from autograd_conformance.harness.engines import load_engine
from autograd_conformance.harness.program import Leaf, Node, Program
from autograd_conformance.harness.script import Script, drop_dead_lines, literal, replay, reproducers

PROGRAM = Program("float64", (Leaf("x0", np.array([0.5, -2.0]), True),),
                  (Node("v1", "exp", ("x0",)), Node("v2", "sum", ("v1",))), "v2")


@pytest.fixture(scope="module")
def torch_engine():
    return load_engine("torch")


def _failure(step):
    with pytest.raises(Exception) as caught:
        step()
    return caught.value


def test_the_printed_script_is_what_ran_and_runs_alone_under_torch(torch_engine):
    script = Script(torch_engine)
    tensors = script.build(PROGRAM)
    script.run("out.backward()")
    script.check_close("x0.grad", np.exp([0.5, -2.0]), dtype="float64", oracle="analytic")
    script.raises("out.backward()", "Trying to backward through the graph a second time")
    assert tensors["out"] is script.names["out"] and script.program is PROGRAM
    text = script.text()
    assert text.startswith("import numpy as np\nimport torch\n")
    assert "v1 = torch.exp(x0)\n" in text and "out.backward()\n" in text
    exec(compile(text, "reproducer.py", "exec"), {})   # passes, checks included


def test_a_failing_check_notes_its_script_once_with_the_behaviour(torch_engine):
    script = Script(torch_engine, behaviour="ACC-1")
    script.build(PROGRAM)
    failure = _failure(lambda: script.check("out.requires_grad is False", "out is {out}"))
    assert isinstance(failure, AssertionError) and str(failure).startswith("out is 1.7840")
    [found] = reproducers(failure)
    assert found.behaviour == "ACC-1" and found.script == script.text() and found.check
    assert found.script.rstrip().endswith('assert out.requires_grad is False, f\'out is {out}\'')
    assert found.error == "AssertionError: out is 1.7840" + str(failure)[len("out is 1.7840"):]
    assert found.line == found.script.count("\n")   # its last line
    assert len(failure.__notes__) == 1 and failure.__notes__[0].startswith(
        f"Reproducer (torch script) of ACC-1 (failed check at line {found.line}: AssertionError")


def test_a_check_names_its_own_behaviour_and_an_engine_error_keeps_the_script(torch_engine):
    script = Script(torch_engine, behaviour="ACC-1")
    script.build(PROGRAM)
    failure = _failure(lambda: script.check("False", "no", behaviour="LEAF-5"))
    assert reproducers(failure)[0].behaviour == "LEAF-5"
    error = _failure(lambda: script.run("x0.no_such_method()"))
    assert isinstance(error, AttributeError)
    [found] = reproducers(error)
    assert found.script.rstrip().endswith("x0.no_such_method()")
    assert (found.behaviour, found.check) == (None, False)   # no check failed: the engine raised
    assert found.error.startswith("AttributeError: ") and "no_such_method" in found.error


def test_an_engine_error_mid_step_ends_the_reproducer_at_the_statement_that_raised(torch_engine):
    script = Script(torch_engine)
    error = _failure(lambda: script.run("a = torch.ones(2)", "b = a.no_such_method()",
                                        "c = b + 1", "d = c * 2"))
    [found] = reproducers(error)
    assert found.script.rstrip().endswith("a = torch.ones(2)\nb = a.no_such_method()")
    assert found.line == found.script.count("\n") and exec_fails_at_last_line(found.script)
    block = _failure(lambda: script.run("for i in range(2):\n    e = a.missing()\n    f = 1",
                                        "g = 2"))
    assert reproducers(block)[0].script.rstrip().endswith("    e = a.missing()\n    f = 1")


def exec_fails_at_last_line(text: str) -> bool:
    """Whether `text`, run under torch, raises at its last line."""
    import traceback
    try:
        exec(compile(text, "reproducer.py", "exec"), {})
    except Exception as error:  # noqa: BLE001
        lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__)
                 if frame.filename == "reproducer.py"]
        return lines[-1] == text.count("\n")
    return False


def test_each_failure_of_an_exception_group_keeps_its_own_reproducer(torch_engine):
    failures = []
    for behaviour, condition in (("HOOK-1", "False"), ("HOOK-2", "1 == 2")):
        script = Script(torch_engine, behaviour=behaviour)
        failures.append(_failure(lambda: script.check(condition, "failed")))
    found = reproducers(ExceptionGroup("two bugs", failures))
    assert [reproducer.behaviour for reproducer in found] == ["HOOK-1", "HOOK-2"]
    assert found[0].script.rstrip().endswith("assert False, f'failed'")
    assert reproducers(ValueError("no note")) == [] and reproducers(None) == []


def test_close_checks_report_none_shape_and_values(torch_engine):
    script = Script(torch_engine)
    script.build(PROGRAM)
    none = _failure(lambda: script.check_close("x0.grad", [1.0, 2.0], dtype="float64",
                                               oracle="analytic"))
    assert "x0.grad (analytic oracle) is None" in str(none)
    script.run("out.backward()")
    shape = _failure(lambda: script.check_close("x0.grad", [1.0], dtype="float64",
                                                oracle="analytic"))
    assert "has shape (2,), expected (1,)" in str(shape)
    off = _failure(lambda: script.check_close("x0.grad", np.exp([0.5, -2.0]) * 1.001,
                                              dtype="float64", oracle="analytic"))
    assert "is off by up to" in str(off)


def test_an_expected_error_that_does_not_come_fails(torch_engine):
    script = Script(torch_engine)
    script.build(PROGRAM)
    missing = _failure(lambda: script.raises("out.backward(retain_graph=True)"))
    assert str(missing) == "out.backward(retain_graph=True) did not raise RuntimeError"
    script.run("out.backward()")   # the graph was retained once; now it is freed
    worded = _failure(lambda: script.raises("out.backward()", "another text"))
    assert "the error says: Trying to backward" in str(worded)


def test_an_expected_warning_is_recorded_and_its_absence_fails(torch_engine):
    script = Script(torch_engine)
    script.warns("warnings.warn('old name', FutureWarning)", "old name", category="FutureWarning")
    wrong = _failure(lambda: script.warns("warnings.warn('old name', FutureWarning)", "old name"))
    assert str(wrong) == ("warnings.warn('old name', FutureWarning) gave no UserWarning saying "
                          "'old name'; it warned: ['old name']")
    silent = _failure(lambda: script.warns("x = 1", "anything"))
    assert str(silent).endswith("it warned: []")
    assert reproducers(silent)[0].script.rstrip().endswith("repr([str(w.message) for w in caught])")


def test_literals_read_back_to_the_same_floats():
    values = np.array([[0.1, -1e-300], [np.inf, np.nan]])
    back = np.array(eval(literal(values)))
    assert np.array_equal(back, values, equal_nan=True)


def test_check_equal_compares_none_and_bools_by_identity_and_the_rest_by_equality(torch_engine):
    script = Script(torch_engine)
    script.run("x = torch.ones(2, requires_grad=True)", "y = x * 2", "one = 1")
    script.check_equal("x.grad", None, why="no backward ran")
    assert script.lines[-1] == ("assert x.grad is None, "
                                "f'x.grad is {x.grad!r}, expected None (no backward ran)'")
    script.check_equal("y.is_leaf", False)
    script.check_equal("tuple(y.shape)", (2,))
    assert script.lines[-1].startswith("assert tuple(y.shape) == (2,), ")
    script.check_equal("1 + 1", 2)          # an operator's expression is grouped
    assert script.lines[-1].startswith("assert (1 + 1) == 2, ")
    equal_but_not_true = _failure(lambda: script.check_equal("one", True))
    assert str(equal_but_not_true) == "one is 1, expected True"
    script.run("y.sum().backward()")
    none = _failure(lambda: script.check_equal("x.grad", None, why="x must keep no gradient"))
    assert str(none) == ("x.grad is tensor([2., 2.]), expected None "
                         "(x must keep no gradient)")
    flag = _failure(lambda: script.check_equal("y.requires_grad", False, why="y is recorded"))
    assert str(flag) == "y.requires_grad is True, expected False (y is recorded)"
    shape = _failure(lambda: script.check_equal("tuple(y.shape)", (2, 1), why="y's shape"))
    assert str(shape) == "tuple(y.shape) is (2,), expected (2, 1) (y's shape)"
    assert reproducers(shape)[0].script.rstrip().endswith(
        "assert tuple(y.shape) == (2, 1), f\"tuple(y.shape) is {tuple(y.shape)!r}, expected "
        "(2, 1) (y's shape)\"")


def test_show_prints_each_value_after_the_message(torch_engine):
    script = Script(torch_engine)
    script.run("calls = [1, 2]", "name = 'x0'")
    script.check("len(calls) == 2", "the hook ran more than twice", show=("calls", "name"))
    failure = _failure(lambda: script.check("len(calls) == 3", "the hook did not run 3 times",
                                            show=("calls", "len(calls)", "name")))
    assert str(failure) == ("the hook did not run 3 times; calls = [1, 2]; len(calls) = 2; "
                            "name = 'x0'")
    assert reproducers(failure)[0].script.rstrip().endswith(
        "assert len(calls) == 3, f'the hook did not run 3 times; calls = {calls!r}; "
        "len(calls) = {len(calls)!r}; name = {name!r}'")



def test_check_grad_like_fails_on_each_of_its_conditions(torch_engine):
    script = Script(torch_engine)
    script.run("x = torch.ones(2, 3, requires_grad=True)")
    none = _failure(lambda: script.check_grad_like("x", (2, 3)))
    assert str(none) == "x requires grad and takes part, but .grad is None"
    script.run("(x * 2).sum().backward()")
    script.check_grad_like("x", (2, 3))
    shape = _failure(lambda: script.check_grad_like("x", (3, 2)))
    assert str(shape) == "tuple(x.grad.shape) is (2, 3), expected (3, 2) (x's shape)"
    # torch refuses a .grad of another dtype: a stand-in for an engine's leaf that takes one
    script.run("import types",
               "w = types.SimpleNamespace(grad=torch.zeros(2), dtype=torch.float64)")
    dtype = _failure(lambda: script.check_grad_like("w", (2,)))
    assert str(dtype) == ("w.grad's dtype is not w's; w.grad.dtype = torch.float32; "
                          "w.dtype = torch.float64")


def test_braces_in_expected_values_why_and_shown_expressions_stay_literal(torch_engine):
    """The message is an f-string in the script: a dict's braces, in the expected value, the
    reason or a shown expression, must not be read as replacement fields."""
    script = Script(torch_engine)
    script.run("m = {'seen': 2}")
    failure = _failure(lambda: script.check_equal("m", {"seen": 1}, why="a {dict}"))
    assert str(failure).startswith("m is {'seen': 2}, expected {'seen': 1} (a {dict})")
    failure = _failure(lambda: script.check("False", "no", show=("{k: 0 for k in m}",)))
    assert str(failure).startswith("no; {k: 0 for k in m} = {'seen': 0}")


def _exp_doubles_its_input(torch_engine):
    """torch, except that exp doubles its argument in place: a side effect that an exp whose
    result nothing reads still has."""
    def exp(tensor):
        tensor.mul_(2)
        return torch.exp(tensor)
    ns = types.ModuleType("exp_doubles_its_input")
    ns.exp, ns.__getattr__ = exp, lambda name: getattr(torch_engine.ns, name)
    return dataclasses.replace(torch_engine, name="exp-doubles-its-input", ns=ns)


def test_dead_lines_are_dropped_where_replays_show_that_the_failure_does_not_need_them(torch_engine):
    """Both `unused` and `b` are never read; without `unused` the script still fails the same way,
    but without `b` the engine passes (its exp changed `a`): `unused` goes, `b` stays."""
    engine = _exp_doubles_its_input(torch_engine)
    script = Script(engine)
    script.run("a = torch.ones(2)", "unused = a * 3", "b = torch.exp(a)")
    failure = _failure(lambda: script.check_equal("a.sum().item()", 2.0))
    [before] = reproducers(failure)
    drop_dead_lines(failure, engine)
    [after] = reproducers(failure)
    assert after.script == before.script.replace("unused = a * 3\n", "")
    assert after.line == before.line - 1 and after.error == before.error
    assert failure.__notes__ == [after.note]
    assert replay(after, engine).line == after.line and replay(after, torch_engine) is None


def test_the_step_that_raised_stays_though_nothing_reads_what_it_assigns(torch_engine):
    """The last step is the failure itself: an assignment that raised on the engine (here, only
    where exp ran first) is kept, and only the lines before it that the failure does not need go."""
    engine = _exp_doubles_its_input(torch_engine)
    script = Script(engine)
    failure = _failure(lambda: script.run("a = torch.ones(2)", "unused = a * 3",
                                          "b = torch.exp(a)", "c = 1 / (a.sum().item() - 4)"))
    assert isinstance(failure, ZeroDivisionError)
    drop_dead_lines(failure, engine)
    [found] = reproducers(failure)
    assert found.script.endswith(
        "\na = torch.ones(2)\nb = torch.exp(a)\nc = 1 / (a.sum().item() - 4)\n")
