"""PyTorch with its second backward engine, compiled autograd, as the engine under test.

Compiled autograd (`torch._dynamo.compiled_autograd`) replaces the C++ engine's walk of the graph:
at each `backward()` / `autograd.grad` it traces the graph into an FX graph, caches it by the
graph's structure, hands it to a compiler function and runs what that returns. The compiler here is
the eager one: it returns the captured graph module itself, which runs op by op, so the run tests
compiled autograd's capture and its runtime, not a code generator. (`torch.compile(gm,
backend="eager")` would trace the graph once more with dynamo first: measured 1.8 times as slow on
suites/test_accumulation.py, for the same ops.)

Compiled autograd is a process-wide switch of torch, not a separate namespace, so the adapter is the
plain torch namespace plus `engine_context`, which the harness enters around each of this engine's
tests (their hypothesis examples included): every backward of the test, from `Tensor.backward`,
`autograd.grad`, `autograd.functional` or an optimizer's closure, runs through compiled autograd,
and nothing else in the process does (torch itself, selected beside it, stays eager). The adapter
changes no result; what differs from eager torch is listed in baselines/compiled-autograd.txt.
"""

import torch
from torch._dynamo import compiled_autograd

from .torch_adapter import capabilities, to_numpy  # noqa: F401 - the same surface as torch's

name = "compiled-autograd"
version = torch.__version__


def _eager(graph_module):
    """The eager compiler: run the captured backward graph as it is."""
    return graph_module


def engine_context():
    """Route every backward started inside the context through compiled autograd."""
    return compiled_autograd._enable(_eager)


def outside_engine_context():
    """Eager torch again, inside `engine_context`: where a test computes its torch oracle (VAL-3's
    differential check), so that compiled autograd is compared with the eager engine, not with
    itself."""
    return compiled_autograd._disable()


def __getattr__(attribute):
    """Everything not defined here is torch's own."""
    return getattr(torch, attribute)
