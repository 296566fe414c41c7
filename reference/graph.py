"""The recorded graph: nodes (`grad_fn` objects), what they save, and when an op records one.

Every differentiable op in `ops/` creates one `Node` subclass named like torch's (`MulBackward0`,
...) whose `backward(grad)` returns one gradient per input, through `record`, the one place that
decides whether an op is recorded at all. A node points at the nodes of its inputs through
`next_functions` (GFN-3); a leaf that requires grad is reached through its `AccumulateGrad` node
(GFN-4). `walk.py` runs the nodes.

Backward formulas are written once and run on two kinds of values: NumPy arrays for a plain
backward (fast, nothing recorded), or Tensors when `create_graph=True`, so that the backward pass is
itself recorded on a new graph and can be differentiated again (HO-1). A node's `saved(grad)`
returns its saved values in the same form as the incoming gradient.

This module must not know any op: the op set lives in `ops/`.
"""
import itertools
import math
import threading
import weakref

import numpy as np

from . import anomaly, grad_mode, layout, walk
from .hooks import saved_tensor_hooks
from .node_hooks import NodeHookMethods
from .saved import DETACHED_MESSAGE, forward_name, pack_checked, saved_mutation
from .tensor import Tensor, make

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
# The version error's hint: where to look, under anomaly mode (INP-18), else how to find out.
_HINT = ("enable anomaly detection to find the operation that failed to compute its gradient, with "
         "torch.autograd.set_detect_anomaly(True, check_nan=False).")
_ANOMALY_HINT = ("the backtrace further above shows the operation that failed to compute its gradient. "
                 "The variable in question was changed in there or anywhere later. Good luck!")
_NO_EDGE = (None, 0)
_creation_order = itertools.count()
_state = grad_mode.state
_accumulating = threading.Lock()  # held while a pass, of any thread, adds into a .grad (THR-3)


class Node(NodeHookMethods):
    """A recorded operation: `next_functions` to its inputs' nodes, the values its backward needs.

    `_saved` is `()` for ops that save nothing, a tuple of saved values otherwise, and None once a
    backward without `retain_graph` released it: only then does reusing the node raise (RETAIN-1,
    RETAIN-3: add, sum, views... save nothing and can be backpropagated twice).
    """

    __slots__ = ("next_functions", "_saved", "_versions", "_nonleaf", "_pre_hooks", "_retained", "_sequence", "_trace",
                 "_node_hooks", "_metadata", "__weakref__")
    saved_names = ()  # what `_saved_<name>` exposes, in the order of `save(...)` (GFN-5)
    outputs = 1  # a custom Function may have several: its backward gets a list (walk.py)
    saves_result = False  # True when the last saved value is the op's own output (INP-6)

    def __init__(self, *inputs):
        self._sequence = -next(_creation_order)  # the walk runs later nodes first, like torch (HOOK-13)
        self.next_functions = (edge(inputs[0]),) if len(inputs) == 1 else tuple(map(edge, inputs))
        self._saved = ()
        self._versions = self._nonleaf = ()
        self._pre_hooks = None  # tensor hooks of the node's output (HOOK-2, HOOK-11)
        self._retained = None  # weak reference to the output tensor that called retain_grad()
        self._trace = anomaly.forward_trace()  # where forward recorded it, under anomaly mode (ANOM-4)
        self._node_hooks = self._metadata = None  # node_hooks.py

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def needs_grad(self, i):
        """Whether input i leads to anything that requires grad (else its gradient is skipped)."""
        return self.next_functions[i][0] is not None

    def save(self, *values):
        """Keep values for backward: Tensors (with their version, INP-5), Python numbers or None.
        Inside the saved_tensors_hooks open now (SAV-8) each tensor is kept as what pack returns (SAV-1).
        Without hooks, a non-leaf is kept as itself, so detaching it in place later breaks the
        node (`_nonleaf`, DET-10); outputs are saved detached, hence exempt, as in torch."""
        versions = []
        hooks = saved_tensor_hooks.current()
        for value in values:
            if isinstance(value, Tensor):
                if value._inference:
                    raise RuntimeError(INFERENCE_SAVE_MESSAGE)
                versions.append(value._version)
            else:
                versions.append(None)
        self._saved = values if hooks is None else tuple(
            Packed(hooks, value) if isinstance(value, Tensor) else value for value in values)
        self._versions = tuple(versions)
        self._nonleaf = tuple(hooks is None and isinstance(value, Tensor) and value.grad_fn is not None
                              for value in values)
        saved_mutation.register(self)

    def produced(self, value):
        """Whether a saved value is this node's own output (named as such in the version error)."""
        return self.saves_result and value is original(self._saved[-1])

    def saved(self, like):
        """The saved values, as Tensors if `like` (the incoming gradient) is one, else as arrays,
        in the same dtype: a create_graph backward computes as exactly as a plain one (VAL-4)."""
        return self._unpack(isinstance(like, Tensor))

    def _unpack(self, as_tensors):
        """The saved values, checked: raises torch's errors when they were released (RETAIN-1,
        RETAIN-7, MSG-1) or modified in place since they were saved (INP-5 .. INP-8, DET-3). Only
        saved tensors are checked: in-place changes to a tensor no node saved are fine (INP-9).
        """
        if self._saved is None:
            raise RuntimeError(FREED_MESSAGE)
        for value, version, nonleaf in zip(map(original, self._saved), self._versions, self._nonleaf):
            if version is not None and value._version != version:
                raise RuntimeError(_modified_message(value, version, self))
            if nonleaf and value.grad_fn is None:  # detach_() since it was saved (DET-10)
                raise RuntimeError(DETACHED_MESSAGE)
        values = tuple(value.unpacked() if isinstance(value, Packed) else value
                       for value in self._saved)
        if not as_tensors:
            return [v._array if isinstance(v, Tensor) else v for v in values]
        if self.saves_result:
            # The output, seen again through this node, so that its derivative flows through it (HO-4).
            result = values[-1]
            output = make(result._array, True, self)
            output._counter = result._counter
            values = values[:-1] + (output,)
        return values

    def __getattr__(self, name):
        """`_saved_<name>`: a saved value; a saved Python number shows as a 0-dim tensor (GFN-5)."""
        if name.startswith("_saved_") and name[7:] in type(self).saved_names:
            value = self._unpack(True)[type(self).saved_names.index(name[7:])]
            return make(np.array(value)) if isinstance(value, (int, float)) else value
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def backward(self, grad):
        raise NotImplementedError


class Packed:
    """A saved tensor as a saved_tensors_hooks pack hook returned it, kept with the unpack hook open
    at save time (SAV-8). `unpacked()` calls it at backward (SAV-2) and puts its values, what backward
    computes with (SAV-3), at the saved tensor's place in the graph, as torch does: the data comes
    from the hooks, the grad_fn (or a leaf's accumulator, held from the save on as torch holds it) from
    the tensor, so that double backward reaches it (SAV-9); the tensor is also kept for its version check."""

    __slots__ = ("packed", "unpack", "tensor", "accumulator")

    def __init__(self, hooks, tensor):
        pack, self.unpack = hooks
        with grad_mode.no_grad():  # torch runs both hooks without recording
            self.packed, self.tensor = pack_checked(pack, tensor), tensor
        self.accumulator = grad_accumulator(tensor) if tensor._requires_grad and tensor.grad_fn is None else None

    def unpacked(self):
        with grad_mode.no_grad():
            data, tensor = self.unpack(self.packed), self.tensor
        alias = make(data._array, tensor._requires_grad, tensor.grad_fn)
        alias._output_nr, alias._counter = tensor._output_nr, tensor._counter
        if self.accumulator is not None:
            alias._accumulator = weakref.ref(self.accumulator)
        return alias


def original(value):
    """A saved value as it was saved: the tensor behind a Packed one."""
    return value.tensor if isinstance(value, Packed) else value


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: adds incoming gradients into `variable.grad` (GFN-4).

    A leaf's tensor hooks live on the leaf itself, so they apply to every graph it is used in (HOOK-7).
    """

    __slots__ = ("variable",)

    def __init__(self, variable):  # not super().__init__, which would assign the hooks property below
        self._sequence = -math.inf  # torch runs a leaf's accumulation as soon as it is ready
        self.next_functions = ()
        self._saved = ()
        self._versions = self._nonleaf = ()
        self._retained = None
        self._node_hooks = self._metadata = None
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

    The first gradient is stored as a new tensor of the tensor's dtype (BC-3), a plain leaf that
    does not require grad (LEAF-11), so every leaf that takes part holds a .grad of its own shape
    and dtype (LEAF-5), laid out as layout.py says (BC-4, LAYOUT-1): a copy of the array that
    arrived, which may be the caller's or another leaf's too (ACC-5), unless torch keeps that
    array itself: one the pass owns, laid out as the copy would be (ACC-14). Later ones are added
    in place, keeping the object and its strides (ACC-3, LAYOUT-2): passes accumulate, also
    passes given different gradients (ACC-1, ACC-2, JAC-7), and a .grad zeroed in place starts
    the next pass from zero (ACC-6). Under create_graph `.grad` is replaced instead, by a new
    differentiable tensor (ACC-4). Then the leaf's post-accumulate-grad hooks get the leaf, with
    grad mode as the walk set it: off unless create_graph (HOOK-9).
    """
    with _accumulating:  # passes in other threads add theirs before or after, never lost (THR-3, THR-5)
        current = tensor._grad
        if isinstance(grad, Tensor):  # create_graph=True
            if current is None:
                tensor._grad = make(layout.zeros_for_grad(tensor._array, tensor._cast_grad_to)).copy_(grad)
            else:
                tensor._grad = current + grad
        elif current is None:
            first = layout.zeros_for_grad(tensor._array, tensor._cast_grad_to)  # BC-6
            if walk.current_pass().owns(grad) and layout.laid_out_as(grad, first):
                first = grad
            else:
                first[...] = grad
            tensor._grad = make(first)
        else:
            current._array += grad
            current._bump_version()
    for hook in (tensor._post_accumulate_hooks or {}).values():
        if hook(tensor) is not None:
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def recording(*inputs):
    """Whether an op on inputs is recorded: grad mode is on and an input requires grad (REQ-8,
    MODE-1). Otherwise the op returns a plain leaf, a constant that no gradient flows through
    (MODE-9): that is most calls."""
    if _state.enabled:
        for x in inputs:
            if isinstance(x, Tensor) and x._requires_grad:
                return True
    return False


def record(node_class, *inputs):
    """A new node_class for an op on inputs if the op is recorded (`recording`), else None. This is
    the recording gate: a recorded op's result is a non-leaf with this node as grad_fn (LEAF-3)."""
    return node_class(*inputs) if recording(*inputs) else None


def input_node(t):
    """Where the gradient w.r.t. t arrives: its grad_fn, or for a leaf its AccumulateGrad node."""
    return t.grad_fn if t.grad_fn is not None else grad_accumulator(t)


def grad_accumulator(leaf):
    """The leaf's AccumulateGrad node, shared by every graph that uses the leaf (GFN-4); the leaf
    references it only weakly, so that a graph dies with its last user."""
    node = leaf._accumulator() if leaf._accumulator is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        leaf._accumulator = weakref.ref(node)
    return node


def edge(x):
    """The (node, output number) pair through which gradient reaches x; (None, 0) if x needs none
    (GFN-3). No gradient is ever delivered to a tensor that does not require grad, so such a leaf,
    a frozen parameter included, keeps grad None after backward (REQ-9, MOD-5)."""
    if not isinstance(x, Tensor) or not x._requires_grad:
        return _NO_EDGE
    node = x.grad_fn
    return (node, x._output_nr) if node is not None else (grad_accumulator(x), 0)


def _modified_message(tensor, expected, node):
    """torch 2.13's text for a saved tensor modified in place (INP-5, INP-6, INP-8, MSG-7): the
    version counts every in-place op, the expected one those before the save (INP-7). Its hint
    depends on anomaly mode as backward runs (INP-18)."""
    shape = list(tensor.shape)
    producer = node if node.produced(tensor) else tensor.grad_fn
    described = f"[torch.{tensor.dtype.tensor_type} {shape}]"
    if producer is not None:
        described += f", which is output 0 of {forward_name(producer)},"
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {described} is at version {tensor._version}; expected version {expected} "
        f"instead. Hint: {_ANOMALY_HINT if anomaly.state.enabled else _HINT}"
    )
