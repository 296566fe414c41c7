"""Every failure's reproducer is a self-checking torch script (issue 16): run as printed it passes
under torch, and with `torch` bound to the engine that failed it fails at its last step, the check
that failed in the suite. Checked on the runs of broken engines from several chapters, and on an
adapter of the user's own that is not installed, whose script's binding line imports it from
wherever the script runs (issue 33)."""

import json
import re

import pytest

from autograd_conformance.harness.script import body
from tests.broken import mutants
from tests.support.reproducers import judge
from tests.support.run import ROOT, run_pytest
from tests.support.warm import clean_environment, run_python

CHECKED = [
    "torch_no_accumulation",          # ACC: values after several passes
    "torch_mul_vjp_sign",             # OP: a backward formula
    "torch_second_backward_allowed",  # RETAIN: an expected error
    "torch_hooks_run_in_reverse",     # HOOK: hooks defined in the script
    "torch_detach_keeps_graph",       # DET: a program with nodes changed
    "torch_views_are_leaves",         # LEAF: graph structure
    "reference_unreduced_broadcast",  # BC: a mutant of the reference engine
]


@pytest.mark.parametrize("mutant", CHECKED)
def test_each_reproducer_passes_on_torch_and_fails_on_the_broken_engine(mutant):
    verdicts = judge(mutant)
    assert verdicts, f"the run of {mutant} left no reproducer"
    bad = [verdict for verdict in verdicts if not verdict.ok]
    assert not bad, "\n".join(
        f"{v.nodeid} [{v.behaviour}]: under torch {v.on_torch or 'ran to its end'}; on {mutant} "
        f"{v.on_engine or 'ran to its end'}{'' if v.failed_at_last_step else ' (not at the last step)'}"
        for v in bad)
    attributed = {verdict.behaviour for verdict in verdicts} - {None}
    breaks = mutants()[mutant].behaviours
    assert attributed <= set(breaks) | {None}, (
        f"reproducers attributed to {attributed}, but {mutant} breaks {breaks}")


LOCAL_ADAPTER = '''"""The reference engine with exp's gradient doubled: a user's own adapter, not installed."""
from autograd_conformance import reference
from autograd_conformance.reference.ops.elementwise import ExpBackward0

name = "local-adapter"
version = reference.version
capabilities = reference.capabilities
to_numpy = reference.to_numpy
_backward = ExpBackward0.backward


def __getattr__(attribute):
    return getattr(reference, attribute)


def _doubled(self, grad):
    return tuple(2 * found for found in _backward(self, grad))


ExpBackward0.backward = _doubled
'''


def test_the_reproducer_of_an_adapter_in_the_working_directory_reaches_it_from_anywhere(tmp_path):
    """An adapter imported from the directory the suite ran in: the reproducer's binding line names
    it and that directory, so that, uncommented, the script run by python from another directory
    fails at the check on that engine; as printed, it runs to its end under torch. Hypothesis
    shrinks nothing here (--shrink-budget 0): the example's program keeps nodes that the output
    does not use, and its reproducer drops them."""
    here, elsewhere = tmp_path.resolve() / "project", tmp_path.resolve() / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    (here / "local_adapter.py").write_text(LOCAL_ADAPTER)
    test = "suites/test_values.py::test_float64_gradients_are_exact_to_float64_precision"
    run = run_pytest(str(ROOT / test), "--engine", "local_adapter", "--no-set-aside", "-n", "0",
                     "--shrink-budget", "0", "--no-report", "--json-report", "results.json",
                     "--tb=short", cwd=here)
    [found] = json.loads((here / "results.json").read_text())["tests"][0]["reproducers"]
    binding = found["script"].splitlines()[2]
    assert binding.startswith(f"# import sys; sys.path.insert(0, {str(here)!r}); "
                              f"import local_adapter as torch  # uncomment"), binding
    assert binding in run.stdout   # printed with the failure too (with a traceback style)
    assert not _unread_assignments(found["script"]), found["script"]
    uncommented = found["script"].replace(binding, binding.removeprefix("# "), 1)
    on_torch, on_engine = (run_python(["-c", script], cwd=elsewhere, env=clean_environment())
                           for script in (found["script"], uncommented))
    assert on_torch.returncode == 0, on_torch.stderr
    assert f'File "<string>", line {found["line"]}, in <module>' in on_engine.stderr, \
        on_engine.stderr
    assert found["check"] and found["error"] in on_engine.stderr


def _unread_assignments(script: str) -> list[str]:
    """The lines of the script's body before its last that assign a name no later line reads."""
    lines = body(script).splitlines()
    return [line for place, line in enumerate(lines[:-1])
            if (assigned := re.match(r"(\w+) = ", line))
            and not re.search(rf"\b{assigned[1]}\b", "\n".join(lines[place + 1:]))]
