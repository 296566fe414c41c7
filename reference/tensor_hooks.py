"""A tensor's own hooks: `register_hook` (before its gradient flows on or is accumulated) and
`register_post_accumulate_grad_hook` (after a leaf's `.grad` was updated).

A mixin of `Tensor` (tensor.py). A leaf keeps both kinds itself, so that they apply to every graph
it is used in (HOOK-7); a non-leaf's tensor hooks live on its grad_fn, so that hooks registered
before an in-place change stay with the node that computed the old value (HOOK-11). `walk.py` runs
the tensor hooks, `graph.accumulate_into` the post-accumulate ones.
"""
from . import hooks

NOT_REQUIRING_MESSAGE = "cannot register a hook on a tensor that doesn't require gradient"


class TensorHooks:
    """The hook methods of `Tensor`; reads `_requires_grad` and `grad_fn`, keeps leaves' hooks in
    `_hooks` and `_post_accumulate_hooks`."""

    __slots__ = ()

    def register_hook(self, hook):
        """Call `hook(grad)` when this tensor's gradient is computed; it may return a replacement
        (HOOK-1). A tensor that does not require grad refuses hooks (HOOK-5)."""
        if not self._requires_grad:
            raise RuntimeError(NOT_REQUIRING_MESSAGE)
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = hooks.HookDict()
            return self._hooks.add(hook)
        node = self.grad_fn
        if node._pre_hooks is None:
            node._pre_hooks = hooks.HookDict()
        # one dict per node, in registration order: a node of several outputs (a custom
        # Function's) notes which output each hook is for
        return node._pre_hooks.add(hook if node.outputs == 1 else (self._output_nr, hook))

    def register_post_accumulate_grad_hook(self, hook):
        """Call `hook(tensor)` each time a gradient was accumulated into this leaf's `.grad`
        (HOOK-9); only leaves accumulate, so a non-leaf refuses."""
        if not self._requires_grad:
            raise RuntimeError(NOT_REQUIRING_MESSAGE)
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = hooks.HookDict()
        return self._post_accumulate_hooks.add(hook)
