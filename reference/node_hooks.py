"""Hooks on graph nodes (`grad_fn.register_prehook`, `grad_fn.register_hook`), a node's
`metadata`, and the check every hook's replacement gradient passes.

As the autograd note's "Backward Hooks execution" describes, a node's hooks fire only when the
walk runs the node (HOOK-16): pre-hooks get the gradients of the node's outputs and may replace
them (HOOK-15), post-hooks get the gradients it computed for its inputs too and may replace those
(HOOK-14). Hooks see Tensors; the walk passes NumPy arrays outside create_graph, so values are
wrapped on the way in and unwrapped on the way out. `walk.py` calls `call_prehooks` and
`call_posthooks` around a node's backward.
"""
import numpy as np

from . import hooks
from .tensor import Tensor, make


class NodeHookMethods:
    """The hook methods and `metadata` of `Node` (graph.py), which keeps them in `_node_hooks`
    (a (pre-hooks, post-hooks) pair, made on first use) and `_metadata`."""

    __slots__ = ()

    def register_prehook(self, hook):
        """Call `hook(grad_outputs)` before this node runs; a tuple it returns replaces the
        gradients the node receives (HOOK-15)."""
        return _register(self, 0, hook)

    def register_hook(self, hook):
        """Call `hook(grad_inputs, grad_outputs)` after this node ran; a tuple it returns replaces
        the gradients it passes on to its inputs (HOOK-14)."""
        return _register(self, 1, hook)

    @property
    def metadata(self):
        """A dict of this node's own, the same one at every access (HOOK-20)."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata


def _register(node, kind, hook):
    if node._node_hooks is None:
        node._node_hooks = (hooks.HookDict(), hooks.HookDict())
    return node._node_hooks[kind].add(hook)


def call_prehooks(node, grad):
    """`grad` (one output's gradient, or a list with one per output) after the node's pre-hooks."""
    outputs = _listed(node, grad)
    for hook in node._node_hooks[0].values():
        outputs = _replaced(hook, hook(_tensors(outputs)), outputs)
    return outputs if node.outputs > 1 else outputs[0]


def call_posthooks(node, grad_inputs, grad):
    """The gradients the node computed for its inputs after its post-hooks, which also see the
    gradients it received."""
    grad_inputs, grad_outputs = list(grad_inputs), _tensors(_listed(node, grad))
    for hook in node._node_hooks[1].values():
        grad_inputs = _replaced(hook, hook(_tensors(grad_inputs), grad_outputs), grad_inputs)
    return grad_inputs


def _listed(node, grad):
    return list(grad) if node.outputs > 1 else [grad]


def _tensors(values):
    """The tuple a hook receives: Tensors (arrays wrapped), None where there is no gradient."""
    return tuple(v if v is None or isinstance(v, Tensor) else make(np.asarray(v)) for v in values)


def _replaced(hook, returned, values):
    """What a node hook returned, as the walk's values: None keeps `values`; otherwise a tuple of
    as many gradients, each checked against the one it replaces (`replacement`). Where there was
    no gradient (an input that needs none), there stays none."""
    if returned is None:
        return values
    if not isinstance(returned, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(returned).__name__}'")
    if len(returned) != len(values):
        raise RuntimeError(f"hook '{_name(hook)}' has returned an incorrect number of values "
                           f"(got {len(returned)}, but expected {len(values)})")
    return [None if old is None or new is None else replacement(hook, new, old)
            for new, old in zip(returned, values)]


def replacement(hook, new, old):
    """A hook's gradient `new` in place of `old` (a Tensor or array), in `old`'s form: it must keep
    the shape and dtype (HOOK-8)."""
    old_tensor = old if isinstance(old, Tensor) else make(np.asarray(old))
    if new.shape != old_tensor.shape:
        raise RuntimeError(f"hook '{_name(hook)}' has changed the size of value")
    if new.dtype != old_tensor.dtype:
        raise RuntimeError(f"hook '{_name(hook)}' has changed the type of value (was "
                           f"{_type_name(old_tensor.dtype)} got {_type_name(new.dtype)})")
    return new if isinstance(old, Tensor) else new._array


def _type_name(dtype):
    """A dtype as torch 2.13's message names it: torch.DoubleTensor, but CPUComplexDoubleType for a
    complex one (its legacy type name)."""
    name = dtype.tensor_type
    return f"CPU{name.removesuffix('Tensor')}Type" if name.startswith("Complex") else f"torch.{name}"


def _name(hook):
    return getattr(hook, "__name__", hook)
