"""How many: the counts that the catalog's rules speak of ("each hook", "every pass", "in the order
registered", "once per use"), drawn over a range rather than fixed at their smallest case.

A bug in plumbing often shows only past the first two: the third hook on a tensor run out of order,
a tensor saved twice by one node packed once, the fourth pass that stops accumulating, the
innermost of three nested contexts. Each `Count` names its range and its *corner*, the smallest
value where such bugs show; `counts(COUNT)` draws one, and records the value in `DRAWN` and as a
hypothesis event. tests/test_strategies.py runs every test that draws a count under the `ci`
profile and requires each of them to reach its count's corner, as `reach()` does for programs.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import event
from hypothesis import strategies as st


@dataclass(frozen=True)
class Count:
    what: str       # "hooks on one tensor"
    low: int
    high: int
    corner: int     # the ci profile must draw this many or more, in every test that draws it


HOOKS_PER_TENSOR = Count("hooks on one tensor", 1, 5, corner=3)
HOOKS_PER_NODE = Count("hooks on one node", 1, 5, corner=3)
HOOKS_PER_MODULE = Count("hooks on one module", 1, 4, corner=3)
BACKWARD_PASSES = Count("backward passes", 1, 4, corner=3)
SAVES_OF_ONE_TENSOR = Count("saves of one tensor", 1, 3, corner=2)   # x * x saves x twice
NESTING_DEPTH = Count("nested contexts", 1, 3, corner=3)
FUNCTION_INPUTS = Count("inputs of a function", 1, 4, corner=3)
FUNCTION_OUTPUTS = Count("outputs of a function", 1, 4, corner=3)
USES_OF_ONE_TENSOR = Count("uses of one tensor", 1, 4, corner=3)     # fan-out, branches
VIEW_CHAIN = Count("views in a chain", 1, 4, corner=3)
SEQUENTIAL_MODULES = Count("modules in a Sequential", 1, 4, corner=3)
CHECKPOINT_OUTPUTS = Count("outputs of a checkpointed function", 1, 3, corner=2)

COUNTS = (HOOKS_PER_TENSOR, HOOKS_PER_NODE, HOOKS_PER_MODULE, BACKWARD_PASSES,
          SAVES_OF_ONE_TENSOR, NESTING_DEPTH, FUNCTION_INPUTS, FUNCTION_OUTPUTS,
          USES_OF_ONE_TENSOR, VIEW_CHAIN, SEQUENTIAL_MODULES, CHECKPOINT_OUTPUTS)

# Every value drawn in this process, by `Count.what`; tests/support/probe.py empties it per test.
DRAWN: dict[str, set[int]] = {}


def counts(count: Count, *, low: int | None = None) -> st.SearchStrategy[int]:
    """A number of `count.what` between `low` (the count's own low if not given, for a rule that
    needs two to compare) and the count's high."""
    low = count.low if low is None else low
    if not count.low <= low <= count.corner:
        raise ValueError(f"{count.what}: low {low} outside {count.low}..{count.corner}")
    return st.integers(low, count.high).map(lambda n: _drawn(count, n))


def _drawn(count: Count, n: int) -> int:
    DRAWN.setdefault(count.what, set()).add(n)
    event(f"{count.what}: {n}")
    return n
