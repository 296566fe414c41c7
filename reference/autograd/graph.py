"""`reference.autograd.graph`: hooks on the tensors that nodes save for backward (SAV-*).

Inside `saved_tensors_hooks(pack, unpack)` every tensor an op saves goes through `pack` at forward
time, and what `pack` returned goes through `unpack` when backward needs it (graph.py does both),
as the autograd note's "Hooks for saved tensors" describes.
"""
from ..hooks import saved_tensor_hooks as _hooks
from ..tensor import make


class saved_tensors_hooks:  # noqa: N801 - torch's name
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


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - torch's name
    """Saved tensors are kept as copies in host memory (SAV-6); the reference's only device is
    the CPU, so this only copies."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda t: t._array.copy(), make)


class disable_saved_tensors_hooks:  # noqa: N801 - torch's name
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
