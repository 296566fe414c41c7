"""Mutants of the catalog's chapter 'grad_mode' (suites/test_grad_mode.py): Grad mode: no_grad,
enable_grad, set_grad_enabled, inference_mode."""

import contextlib
import functools

import torch

from autograd_conformance.harness.counts import NESTING_DEPTH
from autograd_conformance.reference import grad_mode, graph
from tests.broken import _torch
from tests.broken.registry import mutant


@mutant("MODE-1")
def torch_no_grad_results_flagged():
    """Under no_grad nothing is recorded, but op results still copy requires_grad from their inputs
    (the flag is propagated, only the graph edge is dropped), so no_grad results claim to
    require grad and backward on them does not raise."""
    class _FlagWithoutGraph(_torch.ResultMode):
        def on_result(self, func, args, result):
            if (not torch.is_grad_enabled() and isinstance(result, torch.Tensor)
                    and result.is_floating_point() and not result.requires_grad
                    and any(t.requires_grad for t in _torch.tensors_in(args))):
                result.requires_grad_()
            return result

    _FlagWithoutGraph().install()


@mutant("MODE-2")
def torch_factories_obey_no_grad():
    """Factories compute `requires_grad and is_grad_enabled()`, so tensors created with
    requires_grad=True inside no_grad do not require grad."""
    def _obeying(factory):
        def create(*args, requires_grad=False, **kwargs):
            return factory(*args, requires_grad=requires_grad and torch.is_grad_enabled(), **kwargs)
        return create

    return {"tensor": _obeying(torch.tensor), "zeros": _obeying(torch.zeros),
            "ones": _obeying(torch.ones)}


@mutant("MODE-3")
def torch_no_grad_update_drops_requires_grad():
    """An in-place op under no_grad on a leaf that requires grad rebinds it to a fresh, untracked
    buffer: the values update but the leaf no longer requires grad (the SGD idiom then stops
    training)."""
    _add_, _mul_ = torch.Tensor.add_, torch.Tensor.mul_

    def _untracking(method):
        def apply(self, *args, **kwargs):
            result = method(self, *args, **kwargs)
            if not torch.is_grad_enabled() and self.is_leaf and self.requires_grad:
                self.requires_grad_(False)
            return result
        return apply

    torch.Tensor.add_, torch.Tensor.mul_ = _untracking(_add_), _untracking(_mul_)


@mutant("MODE-4")
def torch_grad_mode_exit_enables():
    """Leaving a no_grad block switches grad mode on instead of restoring the enclosing mode
    (no_grad implemented as set_grad_enabled(False) ... set_grad_enabled(True)), so a no_grad
    nested in no_grad or in set_grad_enabled(False) turns recording back on too early."""
    class no_grad(torch.no_grad):
        def __exit__(self, *exc):
            torch._C._set_grad_enabled(True)
            return False

    return {"no_grad": no_grad}


@mutant("MODE-4", corner=NESTING_DEPTH)
def torch_third_decorated_call_restores_the_outermost():
    """A function decorated with a grad mode, called inside two other modes (the third nested
    context), restores on return the mode from before the outermost one, not its caller's: one
    or two nested modes, and blocks at any depth, restore correctly."""
    before = []   # the mode before each context now entered, the outermost first

    def _tracked(manager):
        class Tracked(manager):
            def __enter__(self):
                # set_grad_enabled(flag) switches in its constructor; it keeps the mode before.
                before.append(self.prev if manager is torch.set_grad_enabled
                              else torch.is_grad_enabled())
                return super().__enter__()

            def __exit__(self, *exc):
                result = super().__exit__(*exc)
                if len(before) == 3 and getattr(self, "decorated", False):
                    torch._C._set_grad_enabled(before[0])
                before.pop()
                return result

            def clone(self):   # what a decorated function enters at each call
                copy = super().clone()
                copy.decorated = True
                return copy

        return Tracked

    return {"no_grad": _tracked(torch.no_grad), "enable_grad": _tracked(torch.enable_grad),
            "set_grad_enabled": _tracked(torch.set_grad_enabled)}


@mutant("MODE-5")
def torch_set_grad_enabled_context_only():
    """set_grad_enabled(flag) only takes effect as a context manager (it changes the mode in
    __enter__), so calling it as a plain function does nothing."""
    class set_grad_enabled:
        def __init__(self, mode):
            self.mode = bool(mode)

        def __enter__(self):
            self.previous = torch.is_grad_enabled()
            torch._C._set_grad_enabled(self.mode)

        def __exit__(self, *exc):
            torch._C._set_grad_enabled(self.previous)
            return False

    return {"set_grad_enabled": set_grad_enabled}


@mutant("MODE-6")
def torch_inference_mode_is_no_grad():
    """inference_mode() is an alias of no_grad(): nothing is recorded, but results are not
    inference tensors (is_inference() is False)."""
    inference_mode = torch.no_grad
    return {"inference_mode": inference_mode}


@mutant("MODE-8")
def torch_backward_obeys_no_grad():
    """backward() called inside no_grad does nothing (the engine checks grad mode before running
    the backward pass), so no gradients are stored."""
    def _backward(original, tensor, *args):
        if not torch.is_grad_enabled():
            return None
        return original(tensor, *args)

    _torch.patch_backward(_backward)


@mutant("MODE-1", "MODE-9")
def torch_no_grad_is_noop():
    """no_grad() is accepted but records everything (a stub context manager in an engine without
    grad mode), so values computed under it are not constants."""
    class no_grad(contextlib.ContextDecorator):
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    return {"no_grad": no_grad}


@mutant("MODE-7")
def reference_inference_tensors_saved():
    """A node saves inference tensors like any other: an inference tensor used outside
    inference_mode by an op that saves it for backward is accepted (the engine refuses only in-
    place changes and requires_grad for them)."""
    _save = graph.Node.save

    def _save_inference_tensors_too(self, *values):
        inference = [value for value in values if isinstance(value, graph.Tensor) and value._inference]
        for value in inference:
            value._inference = False
        try:
            _save(self, *values)
        finally:
            for value in inference:
                value._inference = True

    graph.Node.save = _save_inference_tensors_too


@mutant("MODE-10")
def reference_grad_mode_decorators_need_parentheses():
    """no_grad and enable_grad decorate only with parentheses: `@no_grad` makes the function a
    no_grad object, and calling it decorates its argument instead of running the function."""
    def _always_a_mode(cls, orig_func=None):
        return object.__new__(cls)

    grad_mode._NoArgumentMode.__new__ = staticmethod(_always_a_mode)


@mutant("MODE-11")
def reference_set_grad_enabled_decorator_switches():
    """set_grad_enabled switches the mode when it is constructed and, used as a decorator, does not
    switch it back: decorating a function with @set_grad_enabled(flag) leaves the caller in that
    mode."""
    grad_mode.set_grad_enabled.__call__ = grad_mode._Mode.__call__


@mutant("MODE-12")
def reference_inference_mode_false_keeps_grad_mode():
    """inference_mode(False) only undoes inference mode: inside no_grad it leaves grad mode off,
    where torch turns it on."""
    def _target(self):
        if self._mode:
            return False, True
        return (True if grad_mode.state.inference else grad_mode.state.enabled), False

    grad_mode.inference_mode._target = _target


@mutant("MODE-16")
def reference_generator_holds_its_mode_across_yields():
    """A decorated generator enters its mode at its first next() and leaves it only once it is
    exhausted: each resumption runs in the mode, but between them the caller runs in the
    generator's mode instead of its own."""
    def _held(self, func):
        @functools.wraps(func)
        def resume_holding_the_mode(*args, **kwargs):
            with self._fresh():
                return (yield from func(*args, **kwargs))
        return resume_holding_the_mode

    grad_mode._Mode._generator_in_mode = _held


@mutant("MODE-16")
def reference_generator_closes_outside_its_mode():
    """A decorated generator runs each resumption in its mode, but closing it early runs its
    cleanup in the caller's mode."""
    def _in_mode_until_closed(self, func):
        @functools.wraps(func)
        def resume_in_mode(*args, **kwargs):
            with self._fresh():
                generator = func(*args, **kwargs)
            sent = None
            while True:
                try:
                    with self._fresh():
                        produced = generator.send(sent)
                except StopIteration as stop:
                    return stop.value
                try:
                    sent = yield produced
                except GeneratorExit:
                    generator.close()
                    raise
        return resume_in_mode

    grad_mode._Mode._generator_in_mode = _in_mode_until_closed


@mutant("MODE-16")
def reference_generator_throw_stops_at_the_wrapper():
    """A decorated generator passes next(), send() and close() on to its body in its mode, but
    throw() raises at the decorator's own yield: the exception never reaches the body, which
    cannot catch it, and comes back out to the caller."""
    def _sends_only(self, func):
        @functools.wraps(func)
        def resume_in_mode(*args, **kwargs):
            with self._fresh():
                generator = func(*args, **kwargs)
            sent = None
            while True:
                try:
                    with self._fresh():
                        produced = generator.send(sent)
                except StopIteration as stop:
                    return stop.value
                try:
                    sent = yield produced
                except GeneratorExit:
                    with self._fresh():
                        generator.close()
                    raise
        return resume_in_mode

    grad_mode._Mode._generator_in_mode = _sends_only


@mutant("MODE-13")
def reference_inference_tensors_count_versions():
    """Outside inference_mode an inference tensor's _version reads as a count instead of
    raising; only inside the block does it raise."""
    from autograd_conformance.reference.tensor import Tensor
    _version = Tensor._version.fget

    def version(self):
        if self._inference and not grad_mode.state.inference:
            return self._shared_counter().value
        return _version(self)

    Tensor._version = property(version)


@mutant("MODE-6")
def reference_inference_mode_views_are_inference_tensors():
    """A view taken under inference_mode is an inference tensor, even of a normal tensor."""
    from autograd_conformance.reference.ops import views
    from tests.broken import _reference

    def marking(view_of):
        def view_of_in_mode(a, array, node, how):
            out = view_of(a, array, node, how)
            out._inference = grad_mode.state.inference
            return out
        return view_of_in_mode

    _reference.replace(views, "view_of", marking)
