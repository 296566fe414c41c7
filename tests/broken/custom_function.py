"""Mutants of the catalog's chapter 'custom_function' (suites/test_custom_function.py): Custom
autograd.Function: forward, backward and ctx."""

import functools
from types import SimpleNamespace

import numpy as np
import torch

from autograd_conformance.harness.counts import FUNCTION_INPUTS, FUNCTION_OUTPUTS
from autograd_conformance.reference.autograd import function
from autograd_conformance.reference.graph import FREED_MESSAGE, edge
from tests.broken.registry import mutant


@mutant("FN-1")
def reference_function_outputs_not_attached():
    """Function.apply returns what forward computed as it is: the outputs are plain tensors that do
    not require grad, so no gradient reaches the arguments."""
    function._attach = lambda ctx, args, outputs: outputs


@mutant("FN-2")
def reference_function_node_named_generically():
    """Every Function's node is named `FunctionBackward`, whatever the Function is called."""
    @functools.lru_cache(maxsize=None)

    def _generic_node_class(function_class):
        return type("FunctionBackward", (function.FunctionBackward,), {"_function": function_class})

    function._node_class = _generic_node_class


@mutant("FN-3")
def reference_function_forward_recorded():
    """forward runs in the caller's grad mode, so what it computes from an argument that requires
    grad is recorded (the outputs are then still rebased onto the Function's node)."""
    def _recorded_forward(cls, ctx, args):
        if cls.setup_context is function.Function.setup_context:
            return cls.forward(ctx, *args)
        result = cls.forward(*args)
        cls.setup_context(ctx, args, result)
        return result

    function._run_forward = _recorded_forward


@mutant("FN-4")
def reference_function_backward_gets_ones():
    """Each Function's backward is called with a gradient of ones for its output instead of the
    gradient that arrived, as if every output were summed into the loss."""
    _incoming = function.FunctionBackward._incoming

    def _ones(self, g, index):
        received = _incoming(self, g, index)
        return None if received is None else function.make(np.ones_like(received._array))

    function.FunctionBackward._incoming = _ones


@mutant("FN-4", corner=FUNCTION_INPUTS)
def reference_function_gradients_shifted_from_the_third_input():
    """From the third tensor argument on, each argument gets the gradient backward returned for
    the tensor argument before it (an index off by one past the first two)."""
    _backward = function.FunctionBackward.backward

    def _shifted(self, grad):
        grads = _backward(self, grad)
        return grads[:2] + grads[1:-1]

    function.FunctionBackward.backward = _shifted


@mutant("FN-5")
def reference_function_saved_tensors_unversioned():
    """ctx.saved_tensors returns what was saved without comparing versions: a saved tensor modified
    in place is used with its new values."""
    def _unchecked(self):
        if self._saved is None:
            raise RuntimeError(FREED_MESSAGE)
        return tuple(self._saved)

    function.FunctionBackward.saved_tensors = property(_unchecked)


@mutant("FN-6")
def reference_function_saved_tensors_never_freed():
    """What ctx saved outlives backward: a second backward through the node without retain_graph
    reads it again instead of raising."""
    _save = function.FunctionBackward.save_for_backward
    _saved_tensors = function.FunctionBackward.saved_tensors.fget

    def _save_twice(self, *tensors):
        _save(self, *tensors)
        self._kept = tensors

    def _never_freed(self):
        if self._saved is None:
            self._saved = self._kept
        return _saved_tensors(self)

    function.FunctionBackward.save_for_backward = _save_twice
    function.FunctionBackward.saved_tensors = property(_never_freed)


@mutant("FN-7")
def reference_function_needs_input_grad_for_every_tensor():
    """ctx.needs_input_grad is True for every tensor argument, whether it requires grad or not."""
    _init = function.FunctionBackward.__init__

    def _every_tensor(self, args):
        _init(self, args)
        self.needs_input_grad = tuple(isinstance(a, function.Tensor) for a in args)

    function.FunctionBackward.__init__ = _every_tensor


@mutant("FN-8")
def reference_function_non_differentiable_ignored():
    """ctx.mark_non_differentiable does nothing: the marked outputs require grad like the others."""
    function.FunctionBackward.mark_non_differentiable = lambda self, *tensors: None


@mutant("FN-9")
def reference_function_always_materializes():
    """ctx.set_materialize_grads(False) does nothing: backward gets zeros, never None, for outputs
    that no gradient reached."""
    function.FunctionBackward.set_materialize_grads = lambda self, value: None


@mutant("FN-9", corner=FUNCTION_OUTPUTS)
def reference_function_materializes_two_outputs():
    """backward gets zeros for the first two outputs that no gradient reached, and None for the
    third and later ones, as if materializing were off for them."""
    _incoming = function.FunctionBackward._incoming

    def _two_materialized(self, g, index):
        return None if g is None and index >= 2 else _incoming(self, g, index)

    function.FunctionBackward._incoming = _two_materialized


@mutant("FN-10")
def reference_function_none_gradient_as_zeros():
    """A None that backward returns for a tensor argument is turned into zeros, so a leaf that
    should keep .grad None gets a zero gradient."""
    _backward = function.FunctionBackward.backward

    def _zeros_for_none(self, grad):
        metas = [meta for meta in self._arguments if meta is not None]
        return [np.zeros(*meta) if g is None else g for g, meta in zip(_backward(self, grad), metas)]

    function.FunctionBackward.backward = _zeros_for_none


@mutant("FN-11")
def reference_function_gradient_count_unchecked():
    """What backward returns is cut or padded with None to the number of arguments, so a backward
    that returns too many or too few gradients goes unnoticed."""
    _backward = function.FunctionBackward.backward

    def _padded(self, grad):
        user = type(self)._function.backward
        count = len(self._arguments)

        def pad(ctx, *grads):
            returned = user(ctx, *grads)
            returned = returned if isinstance(returned, tuple) else (returned,)
            return (returned + (None,) * count)[:count]
        self._function = SimpleNamespace(backward=pad)
        return _backward(self, grad)

    function.FunctionBackward.backward = _padded


@mutant("FN-12")
def reference_function_gradient_resized():
    """A gradient of a shape the argument does not broadcast to is resized to the argument's shape
    (its values repeated or cut) instead of raising."""
    _checked = function.FunctionBackward._checked

    def _resized(self, g, index, meta, as_tensors):
        try:
            np.broadcast_shapes(meta[0], g.shape)
        except ValueError:
            g = function.make(np.resize(g._array, meta[0]))
        return _checked(self, g, index, meta, as_tensors)

    function.FunctionBackward._checked = _resized


@mutant("FN-13")
def reference_function_gradient_not_summed():
    """A gradient from backward goes on as backward returned it: not summed to the argument's shape
    nor cast to its dtype."""
    function.FunctionBackward._checked = lambda self, g, index, meta, as_tensors: (
        g if as_tensors else g._array)


@mutant("FN-13")
def reference_function_gradient_not_cast():
    """A gradient from backward is summed to the argument's shape but keeps the dtype backward
    gave it: the nodes before the Function compute in the other dtype, and only a leaf's
    accumulation casts it back."""
    checked = function.FunctionBackward._checked

    def _summed_only(self, g, index, meta, as_tensors):
        return checked(self, g, index, (meta[0], g._array.dtype), as_tensors)

    function.FunctionBackward._checked = _summed_only


@mutant("FN-14")
def reference_function_records_under_no_grad():
    """Function.apply records its node whenever an argument requires grad, even under no_grad."""
    function._state = SimpleNamespace(enabled=True)


@mutant("FN-15")
def reference_function_dirty_ignored():
    """ctx.mark_dirty does nothing: an argument that forward modified in place and returns comes
    back as a new tensor (a view of it), and the argument keeps its old grad_fn."""
    function.FunctionBackward.mark_dirty = lambda self, *tensors: None


@mutant("FN-16")
def reference_function_once_differentiable_ignored():
    """once_differentiable returns backward unchanged: the gradients are recorded, so
    differentiating them again succeeds instead of raising."""
    function.once_differentiable = lambda backward: backward


@mutant("FN-17")
def reference_function_backward_never_recorded():
    """A Function's backward always runs under no_grad, even under create_graph, so its gradients
    are constants and the second derivatives through it are missing."""
    _backward = function.FunctionBackward.backward

    def _unrecorded(self, grad):
        with function.grad_mode.no_grad():
            return _backward(self, grad)

    function.FunctionBackward.backward = _unrecorded


@mutant("FN-18")
def reference_function_setup_context_before_forward():
    """setup_context is called before forward, with the output None: what it saves from the output
    is missing in backward."""
    def _setup_first(cls, ctx, args):
        with function.grad_mode.no_grad():
            if cls.setup_context is function.Function.setup_context:
                return cls.forward(ctx, *args)
            cls.setup_context(ctx, args, None)
            return cls.forward(*args)

    function._run_forward = _setup_first


@mutant("FN-19")
def reference_function_one_node_per_class():
    """Each Function class has one node, reused by every apply: a second application re-initialises
    it, so the first application's edges and saved tensors are lost."""
    _node_class = function._node_class

    @functools.lru_cache(maxsize=None)

    def _shared_node(function_class):
        node_class, nodes = _node_class(function_class), []

        def node(args):
            if not nodes:
                nodes.append(node_class(args))
            else:
                nodes[0].__init__(args)
            return nodes[0]
        return node

    function._node_class = _shared_node


@mutant("FN-20")
def reference_function_messages_generic():
    """A wrong number or shape of gradients raises RuntimeError with the engine's own words, not
    torch's message."""
    _backward = function.FunctionBackward.backward

    def _generic(self, grad):
        try:
            return _backward(self, grad)
        except RuntimeError as error:
            if "gradient" in str(error):
                raise RuntimeError("custom backward returned unusable gradients") from None
            raise

    function.FunctionBackward.backward = _generic


@mutant("FN-21")
def reference_function_edges_for_numbers():
    """The node gets an edge for every argument, (None, 0) for numbers too, so next_functions does
    not line up with the tensor arguments."""
    _init = function.FunctionBackward.__init__

    def _every_argument(self, args):
        _init(self, args)
        self.next_functions = tuple(edge(a) for a in args)

    function.FunctionBackward.__init__ = _every_argument


@mutant("FN-22")
def reference_function_jvp_only_when_every_argument_is_dual():
    """A Function's jvp runs only when every tensor argument has a tangent; otherwise its output
    gets none."""
    from tests.broken import _reference

    def all_dual(forward_tangents):
        def only_all_dual(cls, ctx, args, tangents, outputs):
            if all(t is not None for a, t in zip(args, tangents) if isinstance(a, function.Tensor)):
                forward_tangents(cls, ctx, args, tangents, outputs)
        return only_all_dual

    _reference.replace(function, "_forward_tangents", all_dual)


@mutant("FN-22")
def reference_function_keeps_reading_forward_saves():
    """After a Function's jvp, ctx.saved_tensors keeps answering with the tensors saved for
    forward: a backward through the same call reads those instead of what save_for_backward
    kept."""
    def _stays_in_jvp(forward_tangents):
        def forward_tangents_then_stay(cls, ctx, args, tangents, outputs):
            forward_tangents(cls, ctx, args, tangents, outputs)
            ctx._in_jvp = True
        return forward_tangents_then_stay

    from tests.broken import _reference
    _reference.replace(function, "_forward_tangents", _stays_in_jvp)


@mutant("FN-23")
def reference_function_without_jvp_drops_tangents():
    """A Function without jvp, applied to a dual tensor, gives an output without a tangent
    instead of raising."""
    from autograd_conformance.reference import dual
    _apply = function.Function.apply.__func__

    def apply(cls, *args):
        if cls.jvp is function.Function.jvp:
            with dual.primals_only():
                return _apply(cls, *args)
        return _apply(cls, *args)

    function.Function.apply = classmethod(apply)


@mutant("FN-24")
def torch_function_one_view_per_argument():
    """An argument that forward returns as it is comes back as a new view of it, but one view per
    argument, made once: returned at two positions, (x, 2 x, x), both positions get the same view
    object instead of a view each."""
    _apply = torch.autograd.Function.apply.__func__

    def apply(cls, *args, **kwargs):
        outputs = _apply(cls, *args, **kwargs)
        if not isinstance(outputs, tuple):
            return outputs
        made = {}

        def shared(out):
            if not isinstance(out, torch.Tensor) or out._base is None or out.shape != out._base.shape:
                return out
            return made.setdefault(id(out._base), out)
        return tuple(shared(out) for out in outputs)

    torch.autograd.Function.apply = classmethod(apply)
