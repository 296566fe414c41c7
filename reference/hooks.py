"""Where tensor hooks are kept: an ordered dict per tensor or node, and the handle that removes one.

Knows nothing about tensors or nodes, so that `tensor.py` can register hooks without importing the
graph; `walk.py` runs them.
"""
import weakref


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
