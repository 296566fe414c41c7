"""The recorded graph: nodes (`grad_fn` objects), saved tensors, and the backward walk.

Every differentiable op in `ops.py` creates one `Node` subclass named like torch's (`MulBackward0`,
...) whose `backward(grad)` returns one gradient per input. A node points at the nodes of its inputs
through `next_functions` (GFN-3); a leaf that requires grad is reached through its `AccumulateGrad`
node (GFN-4). `run_backward` is the whole engine: it counts the edges into every reachable node, then
runs each node once all of them have delivered, handing it the sum of what arrived.

Backward formulas are written once and run on two kinds of values: NumPy arrays for a plain
backward (fast, nothing recorded), or Tensors when `create_graph=True`, so that the backward pass is
itself recorded on a new graph and can be differentiated again (HO-1). A node's `saved(grad)`
returns its saved values in the same form as the incoming gradient.

This module must not know any op: the op set lives in `ops.py`.
"""
import heapq
import itertools
import math
import warnings
import weakref

import numpy as np

from . import grad_mode
from . import tensor as tensors  # a cycle: tensor.py imports this module; only used at call time

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
INFERENCE_SAVE_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
    "mode in computation tracked by autograd. To work around this, you can make a clone to get a "
    "normal tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
)
_NO_EDGE = (None, 0)
_creation_order = itertools.count()
_NOTHING_ARRIVED = itertools.repeat(None)  # the outputs of a node that did not run


class Node:
    """A recorded operation: `next_functions` to its inputs' nodes, the values its backward needs.

    `_saved` is `()` for ops that save nothing, a tuple of saved values otherwise, and None once a
    backward without `retain_graph` released it: only then does reusing the node raise (RETAIN-1,
    RETAIN-3: add, sum, views... save nothing and can be backpropagated twice).
    """

    __slots__ = ("next_functions", "_saved", "_versions", "_pre_hooks", "_retained", "_sequence", "__weakref__")
    saved_names = ()  # what `_saved_<name>` exposes, in the order of `save(...)` (GFN-5)
    saves_result = False  # True when the last saved value is the op's own output (INP-6)

    def __init__(self, *inputs):
        self._sequence = -next(_creation_order)  # the walk runs later nodes first, like torch
        self.next_functions = (edge(inputs[0]),) if len(inputs) == 1 else tuple(map(edge, inputs))
        self._saved = ()
        self._versions = ()
        self._pre_hooks = None  # tensor hooks of the node's output (HOOK-2, HOOK-11)
        self._retained = None  # weak reference to the output tensor that called retain_grad()

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def needs_grad(self, i):
        """Whether input i leads to anything that requires grad (else its gradient is skipped)."""
        return self.next_functions[i][0] is not None

    def save(self, *values):
        """Keep values for backward: Tensors (with their version, INP-5), Python numbers or None."""
        versions = []
        for value in values:
            if isinstance(value, tensors.Tensor):
                if value._inference:
                    raise RuntimeError(INFERENCE_SAVE_MESSAGE)
                versions.append(value._version)
            else:
                versions.append(None)
        self._saved = values
        self._versions = tuple(versions)

    def saved(self, like):
        """The saved values, as Tensors if `like` (the incoming gradient) is one, else as arrays."""
        return self._unpack(isinstance(like, tensors.Tensor))

    def _unpack(self, as_tensors):
        """The saved values, checked: raises torch's errors when they were released (RETAIN-1, RETAIN-7)
        or modified in place since they were saved (INP-5 .. INP-8, DET-3).
        """
        values = self._saved
        if values is None:
            raise RuntimeError(FREED_MESSAGE)
        for value, version in zip(values, self._versions):
            if version is not None and value._version != version:
                raise RuntimeError(_modified_message(value, version, self))
        if not as_tensors:
            return [v._array if isinstance(v, tensors.Tensor) else v for v in values]
        if self.saves_result:
            # The output, seen again through this node, so that its derivative flows through it.
            result = values[-1]
            output = tensors.make(result._array, True, self)
            output._counter = result._counter
            values = values[:-1] + (output,)
        return values

    def __getattr__(self, name):
        """`_saved_<name>`: a saved value; a saved Python number shows as a 0-dim tensor (GFN-5)."""
        if name.startswith("_saved_") and name[7:] in type(self).saved_names:
            value = self._unpack(True)[type(self).saved_names.index(name[7:])]
            return tensors.make(np.array(value)) if isinstance(value, (int, float)) else value
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def backward(self, grad):
        raise NotImplementedError


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: adds incoming gradients into `variable.grad` (GFN-4).

    A leaf's tensor hooks live on the leaf itself, so they apply to every graph it is used in (HOOK-7).
    """

    __slots__ = ("variable",)

    def __init__(self, variable):  # noqa: super().__init__ would assign the hooks property below
        self._sequence = -math.inf  # torch runs a leaf's accumulation as soon as it is ready
        self.next_functions = ()
        self._saved = ()
        self._versions = ()
        self._retained = None
        self.variable = variable

    @property
    def _pre_hooks(self):
        return self.variable._hooks

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def backward(self, grad):
        accumulate_into(self.variable, grad)
        return ()


def accumulate_into(tensor, grad):
    """Add a gradient into `tensor.grad` the way AccumulateGrad does.

    The first gradient is stored as a new tensor of the tensor's dtype (ACC-5, BC-3); later ones are
    added in place, keeping the object (ACC-3), except under create_graph, where `.grad` is replaced
    by a new differentiable tensor (ACC-4).
    """
    current = tensor._grad
    if isinstance(grad, tensors.Tensor):  # create_graph=True
        if current is None:
            tensor._grad = tensors.make(np.zeros_like(tensor._array)).copy_(grad)
        else:
            tensor._grad = current + grad
    elif current is None:
        tensor._grad = tensors.make(np.array(grad, dtype=tensor._array.dtype))
    else:
        current._array += grad
        current._bump_version()


def edge(x):
    """The (node, 0) pair through which gradient reaches x; (None, 0) if x needs none (GFN-3)."""
    if not isinstance(x, tensors.Tensor) or not x._requires_grad:
        return _NO_EDGE
    node = x.grad_fn
    return (node if node is not None else x._grad_accumulator(), 0)


def _modified_message(tensor, expected, node):
    """torch 2.13's text for a saved tensor modified in place (INP-5, INP-6, INP-8)."""
    shape = list(tensor.shape)
    producer = node if node.saves_result and tensor is node._saved[-1] else tensor.grad_fn
    described = f"[torch.{tensor.dtype.tensor_type} {shape}]"
    if producer is not None:
        described += f", which is output 0 of {_forward_name(producer)},"
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {described} is at version {tensor._version}; expected version {expected} "
        "instead. Hint: enable anomaly detection to find the operation that failed to compute its "
        "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def _forward_name(node):
    """How torch 2.13 names a tensor's producer in the version error (INP-5): 'MulBackward0' -> 'Mul',
    'SumBackward1' -> 'Sum1'; names without a numbered 'Backward' stay as `name()` gives them."""
    name = node.name()
    base, found, number = name.rpartition("Backward")
    if not found or not number.isdigit():
        return name
    return base if number == "0" else base + number


def _count_dependents(roots):
    """For every node reachable from roots, how many edges lead into it (iterative: no recursion limit)."""
    dependents = {}
    stack = list(roots)
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is not None:
                if child in dependents:
                    dependents[child] += 1
                else:
                    dependents[child] = 1
                    stack.append(child)
    return dependents


def _leading_to(roots, targets):
    """The nodes whose backward must run to reach a target (MISC-4, GRAD-1): the others are skipped.

    An iterative post-order walk: a node is needed if one of its children is a target or needed.
    """
    needed, visited = set(), set(roots)
    stack = [(root, iter(root.next_functions)) for root in visited]
    while stack:
        node, children = stack[-1]
        for child, _ in children:
            if child is not None and child not in visited:
                visited.add(child)
                stack.append((child, iter(child.next_functions)))
                break
        else:
            stack.pop()
            if any(child is not None and (child in needed or child in targets) for child, _ in node.next_functions):
                needed.add(node)
    return needed


def run_backward(roots, grads, keep_graph, create_graph, targets=None):
    """Propagate `grads` from the `roots` nodes through the graph.

    Nodes run in topological order (Kahn's algorithm): a node runs once every edge into it has
    delivered, with the sum of what arrived (MISC-1, HOOK-10); among the nodes ready to run, the
    most recently created one goes first, which is torch's order (it decides, for instance, which
    modified saved tensor an error names first). With `targets` None every reached leaf
    accumulates its gradient (Tensor.backward). Otherwise `targets` maps nodes to functions that
    receive the gradient arriving at that node, and only the nodes leading to a target run
    (backward(inputs=...), autograd.grad). Saved values are released after each node runs unless
    `keep_graph` (RETAIN-1). Grad mode during the walk is `create_graph` (HO-2).
    """
    pending = {}
    for node, grad in zip(roots, grads):
        pending[node] = pending[node] + grad if node in pending else grad
    dependents = _count_dependents(pending)
    needed = None if targets is None else _leading_to(pending, targets)
    ready = [(node._sequence, id(node), node) for node in pending if node not in dependents]
    heapq.heapify(ready)
    previous = grad_mode.state.enabled
    grad_mode.state.enabled = create_graph
    try:
        while ready:
            node = heapq.heappop(ready)[2]
            grad = pending.pop(node, None)
            outputs = ()
            if grad is not None:
                if node._pre_hooks is not None or node._retained is not None:
                    grad = _run_tensor_hooks(node, grad)
                if targets is not None and node in targets:
                    targets[node](grad)
                if needed is None or node in needed:
                    outputs = node.backward(grad)
                    if not keep_graph and node._saved:
                        node._saved = None  # release the saved values (RETAIN-1)
            for (child, _), child_grad in zip(node.next_functions, outputs or _NOTHING_ARRIVED):
                if child is None:
                    continue
                if child_grad is not None:
                    pending[child] = pending[child] + child_grad if child in pending else child_grad
                left = dependents[child] - 1
                dependents[child] = left
                if not left:
                    heapq.heappush(ready, (child._sequence, id(child), child))
    finally:
        grad_mode.state.enabled = previous


def _run_tensor_hooks(node, grad):
    """Tensor hooks in registration order, then retain_grad's store (HOOK-1, HOOK-3, HOOK-6, HOOK-8)."""
    as_array = not isinstance(grad, tensors.Tensor)
    value = tensors.make(np.asarray(grad)) if as_array else grad
    for hook in (node._pre_hooks or {}).values():
        replaced = hook(value)
        if replaced is not None:
            if replaced.shape != value.shape:
                raise RuntimeError(f"hook '{getattr(hook, '__name__', hook)}' has changed the size of value")
            value = replaced
    retained = node._retained() if node._retained is not None else None
    if retained is not None:
        _store_retained(retained, value)
    return value._array if as_array else value


def _store_retained(tensor, grad):
    """retain_grad(): keep a non-leaf's gradient, accumulating like a leaf's (LEAF-8, LEAF-10)."""
    if tensor._grad is None:
        tensor._grad = grad.clone() if grad.requires_grad else tensors.make(grad._array.copy())
    elif grad.requires_grad:
        tensor._grad = tensor._grad + grad
    else:
        tensor._grad._array += grad._array


class RemovableHandle:
    """What register_hook returns; `remove()` unregisters the hook (HOOK-4)."""

    _next_id = 0

    def __init__(self, hooks):
        self._hooks_ref = weakref.ref(hooks) if hooks is not None else None
        RemovableHandle._next_id += 1
        self.id = RemovableHandle._next_id

    def remove(self):
        hooks = self._hooks_ref() if self._hooks_ref is not None else None
        if hooks is not None:
            hooks.pop(self.id, None)


class HookDict(dict):
    """An ordered dict of hooks that a RemovableHandle can refer to weakly."""

    __slots__ = ("__weakref__",)


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
