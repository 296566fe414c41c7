"""Mutants of the catalog's chapter 'saved_tensors' (suites/test_saved_tensors.py): Saved tensors
and saved-tensor hooks."""

import numpy as np

import autograd_conformance.reference.autograd.graph as autograd_graph
from autograd_conformance.harness.counts import BACKWARD_PASSES, NESTING_DEPTH, SAVES_OF_ONE_TENSOR
from autograd_conformance.reference import graph, hooks
from autograd_conformance.reference.autograd import function
from autograd_conformance.reference.hooks import saved_tensor_hooks
from autograd_conformance.reference.ops import arithmetic
from tests.broken import _reference
from tests.broken.registry import mutant


@mutant("SAV-2", "SAV-1")
def reference_saved_hooks_pack_at_backward():
    """A saved tensor is packed only when backward needs it, so pack runs at backward time instead
    of during the op."""
    def _lazy_init(self, hooks, tensor):
        self.packed, self.unpack, self.tensor = None, hooks, tensor

    def _pack_then_unpack(self):
        pack, unpack = self.unpack
        data = unpack(pack(self.tensor))
        alias = graph.make(data._array, self.tensor._requires_grad, self.tensor.grad_fn)
        alias._accumulator = self.tensor._accumulator
        return alias

    graph.Packed.__init__ = _lazy_init
    graph.Packed.unpacked = _pack_then_unpack


@mutant("SAV-1")
def reference_mul_saves_both_operands():
    """a * b saves both tensor operands whenever it records a node (and a / b its numerator),
    also where one of them does not require grad, so that the gradient which would need the
    other is never computed: one pack too many, with every gradient right."""
    arithmetic.requires = lambda x: isinstance(x, arithmetic.Tensor)


@mutant("SAV-2")
def reference_saved_hooks_unpack_skipped():
    """backward uses the saved tensor itself and never calls the unpack hook."""
    graph.Packed.unpacked = lambda self: self.tensor


@mutant("SAV-1", "SAV-7", corner=SAVES_OF_ONE_TENSOR)
def reference_one_node_packs_a_tensor_once():
    """A node packs each tensor object it saves once: saving it again (x * x, or
    ctx.save_for_backward(a, a)) reuses what pack returned the first time, so pack runs once for
    it, though unpack still runs once per save."""
    _save = graph.Node.save

    def _packing_once(self, *values):
        hooks = saved_tensor_hooks.current()
        if hooks is None:
            return _save(self, *values)
        pack, unpack = hooks
        first = {}

        def pack_once(tensor):
            if id(tensor) not in first:
                first[id(tensor)] = pack(tensor)
            return first[id(tensor)]

        saved_tensor_hooks.stack.append((pack_once, unpack))
        try:
            return _save(self, *values)
        finally:
            saved_tensor_hooks.stack.pop()

    graph.Node.save = _packing_once


@mutant("SAV-2", corner=BACKWARD_PASSES)
def reference_unpacked_kept_from_the_second_pass():
    """A saved tensor unpacked a second time (by a second pass through a retained graph) keeps
    what unpack returned in place of what pack returned: from the third pass on unpack gets that
    tensor instead."""
    _unpacked = graph.Packed.unpacked
    unpacks = _reference.call_counter()

    def _kept_after_two(self):
        if unpacks(self) != 2:
            return _unpacked(self)
        unpack, returned = self.unpack, []
        self.unpack = lambda packed: returned.append(unpack(packed)) or returned[-1]
        alias = _unpacked(self)
        self.packed, self.unpack = returned[0], unpack
        return alias

    graph.Packed.unpacked = _kept_after_two


@mutant("SAV-3")
def reference_saved_hooks_unpack_result_ignored():
    """The unpack hook is called, but backward computes with the tensor as it was saved, not with
    what unpack returned."""
    _unpacked = graph.Packed.unpacked

    def _called_but_ignored(self):
        _unpacked(self)
        return self.tensor

    graph.Packed.unpacked = _called_but_ignored


@mutant("SAV-4")
def reference_saved_hooks_outermost_wins():
    """With nested saved_tensors_hooks the outermost pair is used, not the innermost."""
    hooks.SavedTensorHooks.current = lambda self: self.stack[0] if self.stack else None


@mutant("SAV-4", corner=NESTING_DEPTH)
def reference_saved_hooks_stack_holds_two():
    """The stack of open hook pairs holds two: opening a third context forgets the outermost,
    so once the inner two close no hooks apply inside it."""
    _enter = autograd_graph.saved_tensors_hooks.__enter__

    def _enter_forgetting(self):
        entered = _enter(self)
        del saved_tensor_hooks.stack[:-2]
        return entered

    def _exit(self, *exc_info):
        if saved_tensor_hooks.stack:
            saved_tensor_hooks.stack.pop()

    autograd_graph.saved_tensors_hooks.__enter__ = _enter_forgetting
    autograd_graph.saved_tensors_hooks.__exit__ = _exit


@mutant("SAV-5")
def reference_saved_hooks_never_disabled():
    """disable_saved_tensors_hooks does nothing: hooks can be opened inside it, and it can be
    entered while hooks are open."""
    autograd_graph.disable_saved_tensors_hooks.__enter__ = lambda self: self
    autograd_graph.disable_saved_tensors_hooks.__exit__ = lambda self, *exc_info: None


@mutant("SAV-6")
def reference_save_on_cpu_in_float32():
    """save_on_cpu keeps its copies in float32, so a float64 program's backward computes with saved
    values rounded to float32."""
    def _float32_copies(self, pin_memory=False, device_type="cuda"):
        autograd_graph.saved_tensors_hooks.__init__(
            self, lambda t: t._array.astype(np.float32),
            lambda values: autograd_graph.make(values.astype(np.float64)))

    autograd_graph.save_on_cpu.__init__ = _float32_copies


@mutant("SAV-7")
def reference_function_saves_bypass_hooks():
    """A custom Function's ctx.save_for_backward keeps its tensors directly, past the saved-tensor
    hooks."""
    _save = function.FunctionBackward.save_for_backward

    def _past_the_hooks(self, *tensors):
        stack = hooks.saved_tensor_hooks.stack[:]
        hooks.saved_tensor_hooks.stack.clear()
        try:
            _save(self, *tensors)
        finally:
            hooks.saved_tensor_hooks.stack[:] = stack

    function.FunctionBackward.save_for_backward = _past_the_hooks


@mutant("SAV-8")
def reference_saved_hooks_unpacked_with_current_hooks():
    """A packed tensor is unpacked with the hooks open at backward time, not those it was packed
    with: outside the context what pack returned is used as it is."""
    def _current_hooks(self):
        hooks = saved_tensor_hooks.current()
        data = hooks[1](self.packed) if hooks is not None else self.packed
        if not isinstance(data, graph.Tensor):
            data = graph.make(data)
        alias = graph.make(data._array, self.tensor._requires_grad, self.tensor.grad_fn)
        alias._accumulator = self.tensor._accumulator
        return alias

    graph.Packed.unpacked = _current_hooks


@mutant("SAV-9")
def reference_unpacked_tensors_detached():
    """What unpack returns is used as a constant: under create_graph the saved tensors lose their
    place in the graph, and the second derivatives through them are missing."""
    _unpacked = graph.Packed.unpacked

    def _constant(self):
        return graph.make(_unpacked(self)._array)

    graph.Packed.unpacked = _constant


@mutant("SAV-10", "SAV-11")
def reference_pack_hooks_may_modify_their_input():
    """A pack hook may change the tensor it packs in place: nothing checks its version."""
    from autograd_conformance.reference import saved
    _reference.replace(saved, "pack_checked", lambda checked: lambda pack, tensor: pack(tensor))


@mutant("SAV-11")
def reference_pack_modified_message_generic():
    """The error of a pack hook that modifies its input is worded its own way."""
    from autograd_conformance.reference import saved
    saved.PACK_MODIFIED_MESSAGE = "pack hook changed the tensor it was given"


@mutant("SAV-12")
def reference_allow_mutation_copies_only_the_tensor_itself():
    """allow_mutation_on_saved_tensors copies a saved tensor before an in-place op only when the
    node saved that very tensor object, not an alias of its storage (a result that its own node
    saves, as tanh's, is saved detached): changing such a result still breaks backward."""
    from autograd_conformance.reference import saved
    saved._same_storage = lambda a, b: a is b
