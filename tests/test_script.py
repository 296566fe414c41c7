"""harness/script.py: a test's steps run on the engine and print as a self-checking torch script."""

import numpy as np
import pytest

from autograd_conformance.harness.engines import load_engine
from autograd_conformance.harness.program import Leaf, Node, Program
from autograd_conformance.harness.script import Script, literal, reproducers

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
    [(behaviour, text)] = reproducers(failure)
    assert behaviour == "ACC-1" and text == script.text()
    assert text.rstrip().endswith('assert out.requires_grad is False, f\'out is {out}\'')
    script._attach(failure, "ACC-1")
    assert len(reproducers(failure)) == 1 and len(failure.__notes__) == 1


def test_a_check_names_its_own_behaviour_and_an_engine_error_keeps_the_script(torch_engine):
    script = Script(torch_engine, behaviour="ACC-1")
    script.build(PROGRAM)
    failure = _failure(lambda: script.check("False", "no", behaviour="LEAF-5"))
    assert reproducers(failure)[0][0] == "LEAF-5"
    error = _failure(lambda: script.run("x0.no_such_method()"))
    assert isinstance(error, AttributeError)
    assert reproducers(error)[0][1].rstrip().endswith("x0.no_such_method()")


def test_each_failure_of_an_exception_group_keeps_its_own_reproducer(torch_engine):
    failures = []
    for behaviour, condition in (("HOOK-1", "False"), ("HOOK-2", "1 == 2")):
        script = Script(torch_engine, behaviour=behaviour)
        failures.append(_failure(lambda: script.check(condition, "failed")))
    found = reproducers(ExceptionGroup("two bugs", failures))
    assert [b for b, _ in found] == ["HOOK-1", "HOOK-2"]
    assert found[0][1].rstrip().endswith("assert False, f'failed'")
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
    assert reproducers(silent)[0][1].rstrip().endswith("repr([str(w.message) for w in caught])")


def test_literals_read_back_to_the_same_floats():
    values = np.array([[0.1, -1e-300], [np.inf, np.nan]])
    back = np.array(eval(literal(values)))
    assert np.array_equal(back, values, equal_nan=True)
