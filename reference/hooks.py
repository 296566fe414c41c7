"""Where hooks are kept: tensor, node and module hooks in ordered dicts, with the handle that
removes one; saved-tensor hooks in a stack (`saved_tensor_hooks`).

Knows nothing about tensors or nodes, so that `tensor.py` can register hooks without importing the
graph; `walk.py` runs the tensor hooks, `graph.py` the saved-tensor hooks.
"""
import threading
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

    def add(self, hook):
        """Register `hook` after the others; the handle that removes it (HOOK-4)."""
        handle = RemovableHandle(self)
        self[handle.id] = hook
        return handle


class SavedTensorHooks(threading.local):
    """The (pack, unpack) pairs of the `saved_tensors_hooks` contexts now open, innermost last
    (SAV-4), and the message that `disable_saved_tensors_hooks` refuses new ones with (SAV-5).
    Per thread: hooks open in one thread pack nothing that another thread saves (THR-2)."""

    def __init__(self):
        self.stack = []
        self.disabled = None

    def current(self):
        """The innermost (pack, unpack) pair, or None."""
        return self.stack[-1] if self.stack else None


saved_tensor_hooks = SavedTensorHooks()
