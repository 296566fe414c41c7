"""Engines that misbehave beyond autograd (hang, end the process, interrupt, raise from everywhere),
for tests/test_robustness.py: the gate must still end, in bounded time, with a report; and one
whose thread tests fail by chance (`unstable_threads`, for tests/test_stability.py): the gate must
call it unstable, never fixed or regressed."""
