"""Mutants of the catalog's chapter 'threads' (suites/test_threads.py): autograd used from several
Python threads at once.

Races are made to show every time: where the bug is an unlocked read-modify-write, the mutant
yields the GIL between the read and the write (`time.sleep(0)`), so that the other threads, which
the tests release together from a barrier, run their own read before it writes.
"""

import contextlib
import sys
import threading
import time
import types
import weakref

from autograd_conformance import reference
from autograd_conformance.reference import grad_mode, graph, hooks
from autograd_conformance.reference.autograd import gradients
from tests.broken._reference import replace
from tests.broken.registry import mutant


def _put_everywhere(original, replacement):
    """Replace `original` by `replacement` under every name a reference module holds it by."""
    prefix = reference.__name__ + "."
    for name, module in list(sys.modules.items()):
        if name == reference.__name__ or name.startswith(prefix):
            for attribute, value in list(vars(module).items()):
                if value is original:
                    setattr(module, attribute, replacement)


@mutant("THR-1")
def reference_grad_mode_shared_by_threads():
    """Grad mode is one switch for the whole process again, not one per thread: no_grad in one
    thread stops the recording of every other thread, and a new thread starts in its creator's
    mode."""
    _put_everywhere(grad_mode.state, types.SimpleNamespace(enabled=True, inference=False))


class _SharedHooks:
    """The saved-tensor hook stack of hooks.SavedTensorHooks, one for all threads."""

    current = hooks.SavedTensorHooks.current

    def __init__(self):
        self.stack, self.disabled = [], None


@mutant("THR-2")
def reference_saved_hooks_shared_by_threads():
    """The saved_tensors_hooks stack is one for the whole process: hooks one thread opens pack what
    every other thread saves meanwhile."""
    _put_everywhere(hooks.saved_tensor_hooks, _SharedHooks())


@mutant("THR-3", "THR-5")
def reference_grad_accumulation_races():
    """Accumulation into .grad takes no lock: a backward pass reads .grad, then writes back what it
    read plus its gradient, and the gradient of a pass in another thread that wrote in between is
    lost (passes in one thread are unaffected)."""
    def _unlocked(accumulate):
        def read_then_write(tensor, grad):
            current = tensor._grad
            read = None if current is None else current._array.copy()
            time.sleep(0)  # another thread's pass accumulates here, before this one writes
            if current is None:
                tensor._grad = None
            else:
                current._array[...] = read
            accumulate(tensor, grad)
        return read_then_write

    graph._accumulating = contextlib.nullcontext()
    replace(graph, "accumulate_into", _unlocked)


@mutant("THR-4")
def reference_grad_results_in_a_shared_slot():
    """autograd.grad hands the gradient reaching each input over through one slot per node that
    every call shares: a call in another thread on a graph with the same leaf may overwrite it
    before this call reads it back."""
    slots = {}

    def _capture(captured, node):
        def store(grad):
            slots[node] = grad
            time.sleep(0)  # another thread's call stores its gradient here
            captured[node] = slots[node]
        return store

    gradients._capture = _capture


@mutant("THR-5")
def reference_graph_release_seen_per_thread():
    """A backward without retain_graph releases the graph's saved values only for the thread that
    ran it: a backward through the graph from another thread still finds them, and succeeds."""
    slot = graph.Node.__dict__["_saved"]
    released = threading.local()

    def read(node):
        return None if node in vars(released).get("nodes", ()) else slot.__get__(node)

    def write(node, values):
        if values is None:
            vars(released).setdefault("nodes", weakref.WeakSet()).add(node)
        else:
            slot.__set__(node, values)

    graph.Node._saved = property(read, write)
