"""The backward walk: from the roots' gradients to every node that leads to a leaf or a target.

`run_backward` is the whole engine: it counts the edges into every reachable node, then runs each
node once all of them have delivered, handing it the sum of what arrived. Around a node, in the
order of the autograd note's "Backward Hooks execution" as torch 2.13 runs it (HOOK-18): its
tensor hooks, retain_grad's store, its pre-hooks, the node, its post-hooks (node_hooks.py); an
AccumulateGrad node runs a leaf's post-accumulate hooks as it accumulates (graph.py).
"""
import heapq
import itertools
import sys
import threading
import warnings

import numpy as np

from . import anomaly, grad_mode, node_hooks
from .tensor import Tensor, make

_NOTHING_ARRIVED = itertools.repeat(None)  # the outputs of a node that did not run
# sys.getrefcount of a tensor that only one local variable references (and the call's argument):
# torch's AccumulateGrad keeps a gradient tensor that nothing else references (ACC-14)
_ONLY_HERE = 2


def _count_dependents(roots):
    """For every node reachable from roots, how many edges lead into it. Each node's edges are
    counted once, also for a root that another root reaches (JAC-5); iterative: no recursion
    limit."""
    dependents = {}
    seen, stack = set(roots), list(roots)
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is not None:
                dependents[child] = dependents.get(child, 0) + 1
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
    return dependents


def _leading_to(roots, targets):
    """The nodes whose backward must run to reach a target (MISC-4, GRAD-1): the others are skipped.

    An iterative post-order walk: a node is needed if one of its children is a target or needed.
    """
    needed, visited = set(), set()
    for root in roots:  # one root at a time: a root that another root reaches is needed there too
        if root in visited:
            continue
        visited.add(root)
        stack = [(root, iter(root.next_functions))]
        while stack:
            node, children = stack[-1]
            for child, _ in children:
                if child is not None and child not in visited:
                    visited.add(child)
                    stack.append((child, iter(child.next_functions)))
                    break
            else:
                stack.pop()
                if any(child is not None and (child in needed or child in targets)
                       for child, _ in node.next_functions):
                    needed.add(node)
    return needed


def _arrive(pending, node, index, grad):
    """Add `grad`, arriving at output `index` of `node`, to what the node has received: one sum,
    or for a node of several outputs (a custom Function's) one sum per output, None where nothing
    arrived (FN-9)."""
    if node.outputs == 1:
        pending[node] = pending[node] + grad if node in pending else grad
        return
    slots = pending.setdefault(node, [None] * node.outputs)
    slots[index] = grad if slots[index] is None else slots[index] + grad


def run_backward(roots, grads, keep_graph, create_graph, targets=None, run_targets=False):
    """Propagate `grads` from the `roots` edges, (node, output number) pairs, through the graph.

    Each node's backward turns the gradient of its output into one per input, a vector-Jacobian
    product, so a root gradient v reaches the leaves as v^T J (JAC-5), and the unit vector e_i as
    row i of the Jacobian (JAC-6). Only nodes reachable from the roots run, so a leaf that takes no
    part keeps its grad (MISC-3); only AccumulateGrad nodes and retain_grad() store a gradient, so
    a non-leaf's .grad stays None (LEAF-6).

    Nodes run in topological order (Kahn's algorithm): a node runs once every edge into it has
    delivered, with the sum of what arrived (MISC-1, HOOK-10); an op has one edge per operand, so
    the same tensor in both slots gets both contributions (MISC-2). Among the nodes ready to run,
    the most recently created one goes first, which is torch's order (HOOK-13; it decides, for
    instance, which modified saved tensor an error names first), and leaves' accumulations before
    any, in the order of torch's heap (`_Ready`). With `targets` None every reached
    leaf accumulates its gradient (Tensor.backward). Otherwise `targets` maps nodes to functions that
    receive the gradient arriving at that node, and only the nodes leading to a target run
    (backward(inputs=...), autograd.grad), and with `run_targets` the targets' own nodes too, as
    backward(inputs=[h]) runs h.grad_fn, whose hooks fire, although nothing below h is reached
    (GRAD-12; autograd.grad skips it, HOOK-16). Saved values are released after each node runs, parts
    of the graph that other outputs share included, unless `keep_graph` (RETAIN-1, RETAIN-8);
    keeping them lets a further backward give the same gradient (RETAIN-4).
    Only the nodes of this graph are released: a forward run anew builds new nodes, whose backward
    needs no retain_graph (RETAIN-9).
    Grad mode during the walk is `create_graph` (HO-2), whatever the caller's: backward inside
    no_grad on a graph built before it computes the usual gradients (MODE-8). Under anomaly mode a
    node's NaN gradient raises, and a node that fails is reported with its forward traceback
    (anomaly.py). These rules, with accumulation (graph.accumulate_into) and the saved values'
    version checks, decide every .grad and every error of any sequence of calls (SEQ-1).
    """
    pending = {}
    for (node, index), grad in zip(roots, grads):
        _arrive(pending, node, index, grad)
    dependents = _count_dependents(pending)
    needed = None
    if targets is not None:
        needed = _leading_to(pending, targets) | (targets.keys() if run_targets else set())
    this_pass = BackwardPass(set(dependents) | set(pending), needed, targets, held=list(grads),
                             pending=pending)
    ready = []
    for node in pending:
        if node not in dependents:
            heapq.heappush(ready, _Ready(node))
    previous = grad_mode.state.enabled
    grad_mode.state.enabled = create_graph
    _running.passes.append(this_pass)
    try:
        while ready:
            node = heapq.heappop(ready).node
            grad = pending.pop(node, None)
            outputs = ()
            if grad is not None and this_pass.executes(node):
                if node._pre_hooks is not None or node._retained is not None:
                    grad = _run_tensor_hooks(node, grad)
                if targets is not None and node in targets:
                    targets[node](grad)
                if needed is None or node in needed:
                    outputs = _call(node, grad)
                    if anomaly.state.enabled and anomaly.state.check_nan:
                        anomaly.check_outputs(node, outputs)
                    if not keep_graph and node._saved:
                        node._saved = None  # release the saved values (RETAIN-1)
            for (child, index), child_grad in zip(node.next_functions, outputs or _NOTHING_ARRIVED):
                if child is None:
                    continue
                if child_grad is not None:
                    _arrive(pending, child, index, child_grad)
                left = dependents[child] - 1
                dependents[child] = left
                if not left:
                    heapq.heappush(ready, _Ready(child))
    except Exception:
        if anomaly.state.enabled:
            anomaly.report_failure(node)
        raise
    finally:
        _running.passes.pop()
        grad_mode.state.enabled = previous


class _Ready:
    """A node in the heap of those ready to run, ordered by its rank alone (`_sequence`): among
    equal ranks (leaves' accumulations) the heap's own order decides, as in torch's ready queue,
    a binary heap that heapq's push and pop move through the same way: the order in which they
    became ready for two or three, not for more (which of two leaves keeps a gradient, ACC-14;
    the order of the leaves' hooks, HOOK-13)."""

    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node

    def __lt__(self, other):
        return self.node._sequence < other.node._sequence


class BackwardPass:
    """One run of `run_backward`, as a hook may ask about it (autograd.graph's multi-grad hook):
    which nodes it executes, and which gradient arrays something besides the input they reach
    holds, so that no leaf keeps one as its .grad (`owns`, graph.accumulate_into, ACC-14): the
    roots' gradients, which are the caller's (`held`), arrays of tensors that a tensor hook
    returned and something else still references (`hold`), and arrays still waiting for another
    node of the pass (`pending`: one a node handed to two inputs or more)."""

    def __init__(self, reached, needed, targets, held, pending):
        self.reached, self.needed, self.targets = reached, needed, targets or {}
        self.held, self.pending = held, pending

    def hold(self, array):
        self.held.append(array)

    def owns(self, array):
        """Whether a leaf may keep `array` as its .grad, as torch's AccumulateGrad keeps ("steals")
        a gradient tensor that nothing else references (ACC-14): a writable view that backward
        or a hook made of another array (through reshaping views and sums over dims of size 1,
        of the caller's gradient, which later passes then add into), held by nothing else. So
        of two leaves that one node hands the same view, as add does, the one accumulated first
        copies it and the last keeps it."""
        waiting = (value for slots in self.pending.values()
                   for value in (slots if isinstance(slots, list) else [slots]))
        return (array.base is not None and array.flags.writeable
                and not any(array is held for held in self.held)
                and not any(array is value for value in waiting))

    def executes(self, node):
        """Whether this pass hands `node` its gradient: a node reached from the roots, and for
        autograd.grad and backward(inputs=...) one that leads to an input or is one. A node that
        does neither gets nothing, so its tensor hooks do not fire either (HOOK-17)."""
        return node in self.reached and (self.needed is None or node in self.needed
                                         or node in self.targets)


class _Running(threading.local):
    """The passes this thread is running, innermost last (a hook may call backward); per thread,
    as passes in other threads run at the same time (THR-3)."""

    def __init__(self):
        self.passes = []


_running = _Running()


def current_pass():
    """The innermost backward pass now running in this thread, or None outside backward."""
    return _running.passes[-1] if _running.passes else None


def _call(node, grad):
    """The node's backward, between its pre-hooks and its post-hooks when it has some (HOOK-14,
    HOOK-15)."""
    if node._node_hooks is None:
        return node.backward(grad)
    grad = node_hooks.call_prehooks(node, grad)
    return node_hooks.call_posthooks(node, node.backward(grad), grad)


def _run_tensor_hooks(node, grad):
    """Tensor hooks in registration order, then retain_grad's store (HOOK-1, HOOK-3, HOOK-6, HOOK-8).
    retain_grad keeps one output per node: a known limit for a custom Function with several."""
    if node.outputs > 1:
        if node._retained is not None:
            raise NotImplementedError("reference: retain_grad on an output of a custom Function "
                                      "with several outputs")
        return _run_output_hooks(node, grad)
    as_array = not isinstance(grad, Tensor)
    value = make(np.asarray(grad)) if as_array else grad
    for hook in (node._pre_hooks or {}).values():
        replaced = hook(value)
        if replaced is not None:
            held = sys.getrefcount(replaced) > _ONLY_HERE + (replaced is value)
            if held and isinstance(replaced, Tensor):  # its maker still holds it (ACC-14)
                current_pass().hold(replaced._array)
            value = node_hooks.replacement(hook, replaced, value)
    retained = node._retained() if node._retained is not None else None
    if retained is not None:
        _store_retained(retained, value)
    return value._array if as_array else value


def _run_output_hooks(node, slots):
    """The tensor hooks of a node of several outputs, each on its output's gradient, None where
    none arrived; torch keeps them per tensor, so an output's hooks run together, in registration
    order, at the place of that output's first hook. A new list of the slots."""
    slots, first = list(slots), {}
    for position, (index, _) in enumerate(node._pre_hooks.values()):
        first.setdefault(index, position)
    for index, hook in sorted(node._pre_hooks.values(), key=lambda pair: first[pair[0]]):
        old = slots[index]
        as_array = old is not None and not isinstance(old, Tensor)
        value = make(np.asarray(old)) if as_array else old
        replaced = hook(value)
        if replaced is not None:
            value = replaced if old is None else node_hooks.replacement(hook, replaced, value)
            slots[index] = value._array if as_array else value
    return slots


def _store_retained(tensor, grad):
    """retain_grad(): keep a non-leaf's gradient (LEAF-8), without create_graph as a plain tensor
    that does not require grad (LEAF-11). Later passes add to it out of place, as torch's hook
    does: .grad becomes a new tensor and the earlier one keeps its value (LEAF-10, ACC-4)."""
    if tensor._grad is None:
        tensor._grad = grad.clone() if grad.requires_grad else make(grad._array.copy())
    else:
        tensor._grad = tensor._grad + grad


def warn_create_graph_backward():
    """The reference-cycle warning of backward(create_graph=True), once per process (HO-3, MISC-14)."""
    global _warned_create_graph
    if not _warned_create_graph:
        _warned_create_graph = True
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the parameter "
            "and its gradient which can cause a memory leak. We recommend using autograd.grad when creating "
            "the graph to avoid this. If you have to use this function, make sure to reset the .grad fields "
            "of your parameters to None after use to break the cycle and avoid the leak.",
            UserWarning, stacklevel=3)


_warned_create_graph = False
