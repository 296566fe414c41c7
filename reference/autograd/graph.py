"""`reference.autograd.graph`: hooks on the tensors that nodes save for backward (SAV-*), changing
saved tensors (`increment_version`, `allow_mutation_on_saved_tensors`), one hook on the gradients
of several tensors (`register_multi_grad_hook`), and gradient edges.

Inside `saved_tensors_hooks(pack, unpack)` every tensor an op saves goes through `pack` at forward
time, and what `pack` returned goes through `unpack` when backward needs it (graph.py does both),
as the autograd note's "Hooks for saved tensors" describes.
"""
import collections
import weakref

from .. import walk
from ..graph import input_node
from ..hooks import saved_tensor_hooks as _hooks
from ..saved import saved_mutation
from ..tensor import make


class saved_tensors_hooks:  # torch's name
    """Within the context, saved tensors are packed by `pack` and unpacked by `unpack` (SAV-1,
    SAV-2); the innermost context wins (SAV-4)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _hooks.disabled is not None:  # SAV-5
            raise RuntimeError(_hooks.disabled)
        _hooks.stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc_info):
        _hooks.stack.pop()


class save_on_cpu(saved_tensors_hooks):  # torch's name
    """Saved tensors are kept as copies in host memory (SAV-6); the reference's only device is
    the CPU, so this only copies."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda t: t._array.copy(), make)


class disable_saved_tensors_hooks:  # torch's name
    """Within the context, saved-tensor hooks are an error: opening a `saved_tensors_hooks` raises
    RuntimeError with `error_message`, and so does entering this one while hooks are open (SAV-5)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        if _hooks.stack:
            raise RuntimeError(self.error_message)
        self._previous, _hooks.disabled = _hooks.disabled, self.error_message
        return self

    def __exit__(self, *exc_info):
        _hooks.disabled = self._previous


def increment_version(tensor):
    """Count an in-place change that autograd did not see, of a tensor or of each in a list: a
    node that saved it then refuses backward, as after any in-place op (INP-20)."""
    for t in tensor if isinstance(tensor, (list, tuple)) else (tensor,):
        t._bump_version()


class allow_mutation_on_saved_tensors:  # torch's name
    """Within the context, tensors that nodes recorded inside it saved may be modified in place:
    backward computes with the values they had when saved (SAV-12; graph.py copies them before
    the write, where torch clones on write). Contexts nest: the outermost keeps the record."""

    def __enter__(self):
        self._previous = saved_mutation.nodes
        if self._previous is None:
            saved_mutation.nodes = weakref.WeakSet()
        return self

    def __exit__(self, *exc_info):
        saved_mutation.nodes = self._previous


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call `fn` once per backward pass that computes gradients of some of `tensors` (HOOK-19).

    Built, as torch builds it, from one tensor hook per tensor, so each tensor's part fires where
    its own hooks do. "all": after the last of the gradients this pass computes, `fn` gets a list
    with one per tensor, None for those the pass does not reach. "any": `fn` gets the first
    gradient computed, and the others are ignored. Each pass keeps its own state.
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    by_pass = weakref.WeakKeyDictionary()  # the state of each pass, gone with it

    def part(i):
        def hook(grad):
            current = walk.current_pass()
            if mode == "any":
                if current not in by_pass:
                    by_pass[current] = True
                    fn(grad)
                return
            grads, expected = by_pass.setdefault(current, ([], _reached(current, tensors)))
            grads.append((i, grad))
            if len(grads) == expected:
                found = dict(grads)
                fn([found.get(j) for j in range(len(tensors))])
        return hook

    return _Handles([t.register_hook(part(i)) for i, t in enumerate(tensors)])


def _reached(backward_pass, tensors):
    """How many of `tensors` get a gradient in `backward_pass`: those whose node it executes."""
    return sum(backward_pass.executes(input_node(t)) for t in tensors)


class _Handles:
    """The handle of a multi-grad hook: `remove()` removes the hook of every tensor."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()


GradientEdge = collections.namedtuple("GradientEdge", ["node", "output_nr"])
GradientEdge.__doc__ = "Where a gradient arrives in the graph: a node and its output number."


def get_gradient_edge(tensor):
    """The edge through which the gradient w.r.t. `tensor` arrives: its grad_fn at its output
    number, or a leaf's AccumulateGrad. autograd.grad takes it in place of the tensor (GRAD-13)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require "
                           "gradients")
    return GradientEdge(input_node(tensor), tensor._output_nr)
