"""Custom differentiable operations: `Function`, its context, and `once_differentiable` (FN-*).

As the "Extending torch.autograd" note describes: a subclass writes `forward` and `backward` as
static methods and is called through `apply`. The context `ctx` that forward fills and backward
reads is the node itself, an instance of a class made once per Function and named
`<Function>Backward` (FN-1), so that what forward saves lives exactly as long as the graph.

Known limit: the outputs of a Function with several outputs take no tensor hooks and no
retain_grad (the walk raises NotImplementedError): a node keeps those for one output.
"""
import functools

import numpy as np

from .. import grad_mode
from ..dual import check_view_tangent, primals_only, set_tangent, tangent
from ..graph import Node, original
from ..ops.common import sum_to
from ..tensor import Tensor, make

_state = grad_mode.state
ONCE_MESSAGE = "trying to differentiate twice a function that was marked with @once_differentiable"
DIRTY_LEAF_MESSAGE = "a leaf Variable that requires grad has been used in an in-place operation."
JVP_MESSAGE = "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."


class FunctionBackward(Node):
    """The node of one `apply`, and the `ctx` of its forward and backward.

    Its edges go to the tensor arguments only, in order (a number has no gradient, FN-21);
    `needs_input_grad` has one flag per argument (FN-7). It has one output per tensor forward
    returned, so the walk hands its backward one gradient per output, or None where none arrived
    (walk.py).
    """

    _function = None  # the Function subclass, set on the class that `_node_class` makes
    outputs = 1

    def __init__(self, args):
        super().__init__(*[a for a in args if isinstance(a, Tensor)])
        self.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        self._arguments = [(a._array.shape, a._array.dtype) if isinstance(a, Tensor) else None
                           for a in args]
        self._dirty, self._non_differentiable = (), ()
        self._materialize = True
        self._for_forward = ()  # what save_for_forward kept, for jvp (FN-22)
        self._in_jvp = False

    # ----- what forward (or setup_context) calls ------------------------------------------------
    def save_for_backward(self, *tensors):
        """Keep tensors (or None) for backward, version-checked when read (FN-4, FN-5); as any node's
        saves, they go through the saved-tensor hooks open now (SAV-7)."""
        self.save(*tensors)

    def save_for_forward(self, *tensors):
        """Keep tensors for jvp, where `saved_tensors` gives them (FN-22)."""
        self._for_forward = tensors

    def produced(self, value):
        return any(value is out for out in self._saved_outputs)

    @property
    def saved_tensors(self):
        """The saved tensors as they were saved; raises once backward freed them (FN-6) or one was
        modified in place since (FN-5). Inside jvp: those saved for forward (FN-22)."""
        if self._in_jvp:
            return tuple(self._for_forward)
        return tuple(self._unpack(True))

    def mark_dirty(self, *tensors):
        """Forward modified these inputs in place and returns them (FN-15)."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """These outputs get no gradient: they do not require grad (FN-8)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        """False: backward receives None, not zeros, for outputs no gradient reached (FN-9)."""
        self._materialize = value

    # ----- what the walk calls ------------------------------------------------------------------
    def backward(self, grad):
        """Call the Function's backward with one gradient per output, then check and shape what it
        returns: one gradient (or None) per forward argument (FN-10 .. FN-13), with torch's messages
        (FN-20). It runs in the walk's grad mode, so under create_graph a backward written with
        differentiable ops is recorded and can be differentiated again (FN-17)."""
        as_tensors = any(isinstance(g, Tensor) for g in _listed(grad))  # under create_graph
        incoming = [self._incoming(g, i) for i, g in enumerate(_listed(grad, self.outputs))]
        returned = self._function.backward(self, *incoming)
        returned = returned if isinstance(returned, tuple) else (returned,)
        while len(returned) > len(self._arguments) and returned[-1] is None:
            returned = returned[:-1]  # extra trailing Nones are allowed (FN-10)
        if len(returned) != len(self._arguments):  # FN-11
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                               f"(expected {len(self._arguments)}, got {len(returned)})")
        grads = []
        for i, (g, meta) in enumerate(zip(returned, self._arguments)):
            if meta is None:
                if g is not None:  # a number's gradient must be None
                    raise RuntimeError(f"function {self.name()} returned a gradient different than None "
                                       f"at position {i + 1}, but the corresponding forward input was "
                                       "not a Variable")
                continue
            grads.append(None if g is None else self._checked(g, i, meta, as_tensors))
        return grads

    def _incoming(self, g, index):
        """A gradient as backward receives it: a Tensor, zeros where none arrived unless
        materializing is off (FN-9)."""
        if g is None:
            if not self._materialize:
                return None
            shape, dtype = self._output_metas[index]
            return make(np.zeros(shape, dtype))
        return g if isinstance(g, Tensor) else make(np.asarray(g))

    def _checked(self, g, index, meta, as_tensors):
        """A returned gradient summed to its input's shape where it broadcasts to it and cast to its
        dtype (FN-13); another shape raises, in torch's words (FN-12, FN-20)."""
        shape = meta[0]
        try:
            fits = np.broadcast_shapes(shape, g.shape) == tuple(g.shape)
        except ValueError:
            fits = False
        if not fits:
            raise RuntimeError(f"Function {self.name()} returned an invalid gradient at index {index} - "
                               f"got {list(g.shape)} but expected shape compatible with {list(shape)}")
        return sum_to(g if as_tensors else g._array, meta)


def _listed(grad, outputs=None):
    """The gradients of a node's outputs as a list (a single output's gradient comes alone)."""
    if isinstance(grad, list):
        return grad
    return [grad] if outputs is None or outputs == 1 else [grad] + [None] * (outputs - 1)


class Function:
    """Subclass with static `forward(ctx, *args)` (or `forward(*args)` plus
    `setup_context(ctx, inputs, output)`) and `backward(ctx, *grads)`; call `apply`."""

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @staticmethod
    def jvp(ctx, *tangents):
        raise NotImplementedError(JVP_MESSAGE)

    @classmethod
    def apply(cls, *args):
        """Run forward, then make its outputs the node's when an argument requires grad in grad
        mode (FN-1, FN-14). Each call makes a node of its own, so a Function applied several times
        runs its backward once per application, with the sum of its outputs' uses (FN-19). Where
        an argument has a tangent, forward mode runs jvp (FN-22); a Function without one raises
        then, after forward ran, as in torch (FN-23)."""
        tangents = [tangent(a) if isinstance(a, Tensor) else None for a in args]
        ctx = _node_class(cls)(args)
        with primals_only():
            result = _run_forward(cls, ctx, args)
        outputs = result if isinstance(result, tuple) else (result,)
        if _state.enabled and any(ctx.needs_input_grad):
            outputs = _attach(ctx, args, outputs)
        else:  # no node, but an argument returned as it is still comes back as a new view (FN-24)
            outputs = tuple(_view_of(out) if any(out is a for a in args) and not any(out is d for d in ctx._dirty)
                            else out for out in outputs)
        if any(t is not None for t in tangents):
            _forward_tangents(cls, ctx, args, tangents, outputs)
        ctx._for_forward = ()
        return outputs if isinstance(result, tuple) else outputs[0]


def _forward_tangents(cls, ctx, args, tangents, outputs):
    """Forward mode through a Function (FN-22): jvp gets one tangent per argument, zeros for a
    tensor without one and None for a number, on primals, and returns one tangent per tensor
    output (None: that output gets none), which must have its output's shape."""
    given = [None if not isinstance(a, Tensor) else t if t is not None else make(np.zeros_like(a._array))
             for a, t in zip(args, tangents)]
    ctx._in_jvp = True
    try:
        with primals_only():
            returned = cls.jvp(ctx, *given)
    finally:
        ctx._in_jvp = False
    returned = returned if isinstance(returned, tuple) else (returned,)
    for out, t in zip([out for out in outputs if isinstance(out, Tensor)], returned):
        if t is None:
            continue
        if t.shape != out.shape:
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the original Tensor, "
                f"this is not supported. Tensor is of size {list(out.shape)} while the given forward gradient "
                f"is of size {list(t.shape)}.")
        if not any(out is d for d in ctx._dirty):
            check_view_tangent(out, t, [(a, g if had is not None else None)
                                        for a, g, had in zip(args, given, tangents) if isinstance(a, Tensor)])
        set_tangent(out, make(np.array(t._array)))


def _run_forward(cls, ctx, args):
    """forward, without recording (FN-3); the form without ctx is followed by setup_context
    (FN-18)."""
    with grad_mode.no_grad():
        if cls.setup_context is Function.setup_context:
            return cls.forward(ctx, *args)
        result = cls.forward(*args)
        cls.setup_context(ctx, args, result)
        return result


@functools.lru_cache(maxsize=None)
def _node_class(function):
    """The node class of a Function subclass, named as torch names it: `<Name>Backward` (FN-1,
    FN-2)."""
    return type(f"{function.__name__}Backward", (FunctionBackward,), {"_function": function})


def _attach(ctx, args, outputs):
    """The forward's outputs as outputs of ctx: dirty inputs rebased onto it (FN-15), an input
    returned unchanged as a view of it, non-differentiable ones left alone (FN-8)."""
    tensors = [out for out in outputs if isinstance(out, Tensor)]
    ctx.outputs = len(tensors)
    ctx._output_metas = tuple((t._array.shape, t._array.dtype) for t in tensors)
    attached, number = [], 0
    for out in outputs:
        if isinstance(out, Tensor):
            out = _as_output(ctx, args, out, number)
            number += 1
        attached.append(out)
    saved = [original(value) for value in ctx._saved]
    ctx._saved_outputs = [out for out in tensors if any(out is s for s in saved)]
    return tuple(attached)


def _view_of(t):
    """A new tensor viewing t's storage (its _base the root of t's views), as torch returns an
    argument that forward returned as it is."""
    view = make(t._array)
    view._base, view._counter = (t._base if t._base is not None else t), t._shared_counter()
    view._fw_base = t._fw_base if t._fw_base is not None else t
    return view


def _as_output(ctx, args, out, number):
    if any(out is t for t in ctx._non_differentiable):
        return out
    if any(out is t for t in ctx._dirty):
        if out._requires_grad and out.grad_fn is None:
            raise RuntimeError(DIRTY_LEAF_MESSAGE)
        out._bump_version()
    elif any(out is a for a in args):
        out = _view_of(out)
    out._set_grad_fn(ctx)
    out._output_nr = number
    return out


def once_differentiable(backward):
    """Run backward without recording; under create_graph its gradients require grad, but
    differentiating them raises (FN-16)."""
    @functools.wraps(backward)
    def run_once(ctx, *grads):
        with grad_mode.no_grad():
            returned = backward(ctx, *grads)
        requiring = [g for g in grads if isinstance(g, Tensor) and g._requires_grad]
        if not (_state.enabled and requiring):
            return returned
        returned = returned if isinstance(returned, tuple) else (returned,)
        return tuple(None if g is None else make(g._array, True, DelayedError(*requiring))
                     for g in returned)
    return run_once


class DelayedError(Node):
    """The node of a once_differentiable backward's gradients: reaching it raises (FN-16)."""

    __slots__ = ()

    def name(self):
        return "torch::autograd::Error"

    def backward(self, grad):
        raise RuntimeError(ONCE_MESSAGE)
