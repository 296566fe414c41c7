"""Mutants of the catalog's chapter 'hooks' (suites/test_hooks.py): Tensor hooks."""

import itertools
import types
import weakref

import numpy as np
import torch

from autograd_conformance import reference
from autograd_conformance.harness.counts import BACKWARD_PASSES, HOOKS_PER_TENSOR, USES_OF_ONE_TENSOR
from autograd_conformance.reference import node_hooks, walk
from autograd_conformance.reference.hooks import HookDict
from autograd_conformance.reference.tensor import Tensor, make
from tests.broken import _reference, _torch
from tests.broken.registry import mutant


@mutant("HOOK-1")
def torch_leaf_hook_result_ignored():
    """A hook's return value is ignored on leaves: the hook runs, but .grad receives the original
    gradient."""
    _register_hook = torch.Tensor.register_hook

    def _register(self, hook):
        if self.is_leaf:
            return _register_hook(self, lambda grad: (hook(grad), None)[1])
        return _register_hook(self, hook)

    torch.Tensor.register_hook = _register


@mutant("HOOK-2")
def torch_non_leaf_hook_result_ignored():
    """A hook's return value is ignored on non-leaves: the original gradient flows on to the
    inputs."""
    _register_hook = torch.Tensor.register_hook

    def _register(self, hook):
        if not self.is_leaf:
            return _register_hook(self, lambda grad: (hook(grad), None)[1])
        return _register_hook(self, hook)

    torch.Tensor.register_hook = _register


@mutant("HOOK-3")
def torch_retain_grad_order_dependent():
    """retain_grad() is itself a hook, so it stores the gradient as it is at its place in the hook
    chain: hooks registered after it do not change the retained .grad (torch before 2.0)."""
    def _retain_grad(self):
        if self.is_leaf:
            return None

        def store(grad):
            previous = getattr(self, "_mutant_retained", None)
            self._mutant_retained = grad.clone() if previous is None else previous + grad
            return None

        torch.Tensor.register_hook(self, store)
        self._mutant_retained = None
        return None

    def _get(get, tensor):
        if hasattr(tensor, "_mutant_retained"):
            return tensor._mutant_retained
        return get(tensor)

    torch.Tensor.retain_grad = _retain_grad
    _torch.patch_property("grad", getter=_get)


@mutant("HOOK-4")
def torch_hook_remove_noop():
    """The handle's remove() does nothing: removed hooks keep running."""
    _register_hook = torch.Tensor.register_hook

    class _Handle:
        def __init__(self, handle):
            self.handle = handle

        def remove(self):
            return None

    torch.Tensor.register_hook = lambda self, hook: _Handle(_register_hook(self, hook))


@mutant("HOOK-5")
def torch_hook_without_requires_grad_ok():
    """register_hook on a tensor that does not require grad returns a handle whose hook never runs,
    instead of raising RuntimeError."""
    _register_hook = torch.Tensor.register_hook

    class _Handle:
        def remove(self):
            return None

    def _register(self, hook):
        if not self.requires_grad:
            return _Handle()
        return _register_hook(self, hook)

    torch.Tensor.register_hook = _register


def _chained_hooks_inserted_at(position):
    """Tensor.register_hook keeping each tensor's hooks in a list of its own, run in list order
    by one torch hook; a new hook goes in at `position(hooks)`."""
    _register_hook = torch.Tensor.register_hook

    def _register(self, hook):
        hooks = getattr(self, "_mutant_hooks", None)
        if hooks is None:
            hooks = self._mutant_hooks = []

            def run_all(grad):
                for each in list(hooks):
                    result = each(grad)
                    grad = grad if result is None else result
                return grad

            _register_hook(self, run_all)
        hooks.insert(position(hooks), hook)
        return _torch.ListedHook(hooks, hook)

    torch.Tensor.register_hook = _register


@mutant("HOOK-6")
def torch_hooks_run_in_reverse():
    """Hooks run in reverse registration order (each new hook is prepended)."""
    _chained_hooks_inserted_at(lambda hooks: 0)


@mutant("HOOK-6", corner=HOOKS_PER_TENSOR)
def torch_hooks_after_the_second_run_first():
    """The first two hooks on a tensor run in registration order, each later one before them all
    (inserted at the front of the list from the third on): only three or more hooks show it."""
    _chained_hooks_inserted_at(lambda hooks: len(hooks) if len(hooks) < 2 else 0)


@mutant("HOOK-13")
def reference_oldest_node_first():
    """Of the nodes ready at the same time, the walk runs the oldest first (a FIFO where torch runs
    the most recently created node first): gradients are unchanged, but hooks on independent
    branches fire in creation order."""
    # Node.__init__ takes `-next(_creation_order)` as the walk's priority: counting down makes the
    # oldest node the smallest, so the walk's heap pops it first.
    reference.graph._creation_order = itertools.count(0, -1)


@mutant("HOOK-13", corner=USES_OF_ONE_TENSOR)
def reference_ready_nodes_sorted_against_the_first_only():
    """The walk's queue of ready nodes takes a node that becomes ready in front if it was created
    after the first one waiting, else at the back: right while at most two wait, but three
    branches ready together can run out of creation order."""
    def push(ready, item):
        ready.insert(0 if not ready or item < ready[0] else len(ready), item)

    walk.heapq = types.SimpleNamespace(heapify=list.sort, heappop=lambda ready: ready.pop(0),
                                       heappush=push)


@mutant("HOOK-7", corner=BACKWARD_PASSES)
def torch_leaf_hook_result_dropped_from_the_third_pass():
    """A leaf's hook changes the gradient of the first two backward passes only: from the third
    on it runs, but the pass's own gradient is accumulated."""
    _register_hook = torch.Tensor.register_hook

    def _register(self, hook):
        if not self.is_leaf:
            return _register_hook(self, hook)
        passes = itertools.count(1)

        def dropped_from_the_third(grad):
            result = hook(grad)
            return result if next(passes) < 3 else None

        return _register_hook(self, dropped_from_the_third)

    torch.Tensor.register_hook = _register


@mutant("HOOK-7")
def torch_leaf_hook_after_accumulation():
    """A leaf's hook is applied to the accumulated .grad after each pass, instead of to the pass's
    own gradient before accumulation."""
    _register_hook = torch.Tensor.register_hook

    class _Handle:
        def __init__(self, handle):
            self.handle = handle

        def remove(self):
            self.handle.remove()

    def _register(self, hook):
        if not self.is_leaf:
            return _register_hook(self, hook)

        def after(tensor):
            result = hook(tensor.grad)
            if result is not None:
                tensor.grad = result

        return _Handle(self.register_post_accumulate_grad_hook(after))

    torch.Tensor.register_hook = _register


@mutant("HOOK-10")
def torch_hook_fires_per_use():
    """A hooked tensor fires its hooks once per use, each time with that use's contribution,
    instead of once with their sum (the engine hooks every edge, not the tensor)."""
    _register_hook = torch.Tensor.register_hook
    _hooked = weakref.WeakKeyDictionary()

    def _register(self, hook):
        if self.is_leaf:
            return _register_hook(self, hook)
        hooks = _hooked.setdefault(self, [])
        hooks.append(hook)
        return _torch.ListedHook(hooks, hook)

    class _HookEveryUse(_torch.ArgsMode):
        def on_args(self, func, args):
            rewritten = []
            for arg in args:
                hooks = _hooked.get(arg) if isinstance(arg, torch.Tensor) else None
                if hooks:
                    alias = arg.view_as(arg)
                    for hook in list(hooks):
                        _register_hook(alias, hook)
                    arg = alias
                rewritten.append(arg)
            return tuple(rewritten)

    torch.Tensor.register_hook = _register
    _HookEveryUse().install()


# Calls on a tensor that pass no gradient through it.
NOT_USES = {"backward", "register_hook", "retain_grad", "register_post_accumulate_grad_hook"}


@mutant("HOOK-10", corner=USES_OF_ONE_TENSOR)
def torch_hook_fires_again_per_use_from_the_third():
    """A hooked tensor fires its hooks once with the sum of its uses' contributions and, from its
    third use on, again with each use's own contribution (the engine hooks the edges of the later
    uses too): only three or more uses show it."""
    _register_hook = torch.Tensor.register_hook
    _hooked = {}  # id(tensor): [a weak reference to it, its uses so far, its hooks]

    def _known(tensor):
        """Whether `tensor` has hooks (found by id: tensors compare elementwise)."""
        found = _hooked.get(id(tensor)) if isinstance(tensor, torch.Tensor) else None
        return found is not None and found[0]() is tensor

    def _register(self, hook):
        if not _known(self):
            _hooked[id(self)] = [weakref.ref(self), 0, []]
        _hooked[id(self)][2].append(hook)
        return _register_hook(self, hook)

    class _HookUsesFromTheThird(_torch.ArgsMode):
        def on_args(self, func, args):
            name = getattr(func, "__name__", "")
            if func is _register or name in NOT_USES or name.endswith("_"):  # nor in place
                return args
            rewritten = []
            for arg in args:
                hooked = _hooked[id(arg)] if _known(arg) else None
                if hooked is not None:
                    hooked[1] += 1
                    if hooked[1] >= 3:
                        arg = arg.view_as(arg)
                        for hook in hooked[2]:
                            _register_hook(arg, hook)
                rewritten.append(arg)
            return tuple(rewritten)

    torch.Tensor.register_hook = _register
    _HookUsesFromTheThird().install()


@mutant("HOOK-8")
def reference_hook_results_reshaped():
    """A tensor hook's result with as many elements as the gradient is reshaped to the gradient's
    shape and cast to its dtype instead of refused; only another number of elements raises."""
    def _reshaping(replacement):
        def reshaped(hook, new, old):
            like = old if isinstance(old, Tensor) else make(np.asarray(old))
            if new.numel() == like.numel():
                new = new.reshape(tuple(like.shape)).to(like.dtype)
            return replacement(hook, new, old)
        return reshaped

    _reference.replace(node_hooks, "replacement", _reshaping)


@mutant("HOOK-11")
def reference_hooks_follow_in_place_changes():
    """An in-place op moves the tensor hooks registered so far to the tensor's new grad_fn: hooks
    registered before the change get the gradient w.r.t. the new value, as hooks kept on the
    tensor rather than on its node would."""
    _set_grad_fn = Tensor._set_grad_fn

    def _moving_the_hooks(self, node):
        old = self.grad_fn
        _set_grad_fn(self, node)
        if old is not None and old._pre_hooks:
            moved = HookDict(old._pre_hooks)
            moved.update(node._pre_hooks or {})
            node._pre_hooks, old._pre_hooks = moved, None

    Tensor._set_grad_fn = _moving_the_hooks


@mutant("HOOK-17")
def reference_hooks_fire_off_the_grad_paths():
    """autograd.grad hands every node that a needed node passes a gradient to that gradient: the
    nodes still do not run, but their tensor hooks fire, also for tensors off the paths to the
    inputs."""
    walk.BackwardPass.executes = lambda self, node: node in self.reached


@mutant("HOOK-23")
def torch_function_output_hooks_kept_on_the_node():
    """A tensor hook on an output of a custom Function is kept on the Function's node, in one list
    for all its outputs: each hook still gets and replaces its own output's gradient, but the
    hooks run in registration order, the outputs' interleaved, not grouped per output."""
    _register_hook = torch.Tensor.register_hook

    def _register(self, hook):
        node, index = self.grad_fn, self.output_nr
        if not hasattr(node, "_forward_cls"):  # not a custom Function's output
            return _register_hook(self, hook)

        def on_the_node(grad_outputs):
            replaced = hook(grad_outputs[index])
            if replaced is not None:
                return grad_outputs[:index] + (replaced,) + grad_outputs[index + 1:]
        return node.register_prehook(on_the_node)

    torch.Tensor.register_hook = _register
