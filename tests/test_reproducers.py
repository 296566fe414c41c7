"""Every failure's reproducer is a self-checking torch script (issue 16): run as printed it passes
under torch, and with `torch` bound to the engine that failed it fails at its last step, the check
that failed in the suite. Checked on the runs of broken engines from several chapters."""

import pytest

from tests.broken import mutants
from tests.support.reproducers import judge

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
