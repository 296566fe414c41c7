"""Engines that misbehave beyond autograd (hang, end the process, interrupt, raise from everywhere),
for tests/test_robustness.py: the gate must still end, in bounded time, with a report."""
