"""What happens to the tensors nodes save, beside the version check of graph.py: the refusals
torch makes around them (a pack hook that changes its input, SAV-10; a saved input detached in
place, DET-10), how torch names a tensor's producer in its errors, and the copies that
`allow_mutation_on_saved_tensors` keeps so that saved tensors may change (SAV-12).

This module knows nodes only by what graph.py keeps on them (`_saved`, `_versions`).
"""
import threading

from .tensor import Tensor, make

DETACHED_MESSAGE = ("Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
                    "This is not supported, please use out-of-place `.detach()` instead")
PACK_MODIFIED_MESSAGE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
    "cannot be modified by in-place operations as this can lead to unexpected side-effects. Please "
    "open an issue if you need to perform in-place operations on the input to a pack hook.")


def pack_checked(pack, tensor):
    """pack(tensor), refused, in torch's words, when pack changed the tensor in place (SAV-10,
    SAV-11)."""
    version = tensor._version
    packed = pack(tensor)
    if tensor._version != version:
        raise RuntimeError(PACK_MODIFIED_MESSAGE)
    return packed


def forward_name(node):
    """How torch 2.13 names a tensor's producer in the version error (INP-5): 'MulBackward0' -> 'Mul',
    'SumBackward1' -> 'Sum1', a custom Function's 'ExpFBackward' -> 'ExpF' (FN-5, FN-20); other
    names stay as `name()` gives them."""
    name = node.name()
    base, found, number = name.rpartition("Backward")
    if not found or not (number.isdigit() or number == ""):
        return name
    return base if number == "0" else base + number


class _SavedMutation(threading.local):
    """The state of allow_mutation_on_saved_tensors (SAV-12), per thread: while one is open, the
    nodes that save tensors are noted (weakly, `register`), and an in-place op first has them copy
    what they saved of the storage it is about to change (`before_write`); torch clones on write
    alike."""

    def __init__(self):
        self.nodes = None  # a WeakSet while a context is open, else None

    def register(self, node):
        if self.nodes is not None:
            self.nodes.add(node)

    def before_write(self, tensor):
        for node in list(self.nodes or ()):
            _keep_copies(node, tensor)


saved_mutation = _SavedMutation()


def _keep_copies(node, tensor):
    """Replace what `node` saved of `tensor`'s storage by copies at the same place in the graph,
    at version 0 of their own: backward computes with the values saved and sees no change."""
    if not node._saved:
        return
    saved, versions = list(node._saved), list(node._versions)
    for i, value in enumerate(saved):
        if isinstance(value, Tensor) and _same_storage(value, tensor):
            saved[i], versions[i] = _copy_in_place_of(value), 0
    node._saved, node._versions = tuple(saved), tuple(versions)


def _same_storage(a, b):
    """Whether a and b share storage: views and aliases share their version counter."""
    return a is b or (a._counter is not None and a._counter is b._counter)


def _copy_in_place_of(t):
    """A copy of t's values that stands where t stands in the graph."""
    copy = make(t._array.copy(), t._requires_grad, t.grad_fn)
    copy._output_nr, copy._accumulator = t._output_nr, t._accumulator
    return copy
