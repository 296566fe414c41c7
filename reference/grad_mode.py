"""Grad mode: whether new operations are recorded on the graph (MODE-1 .. MODE-9).

`state.enabled` is the one switch every op reads; `state.inference` marks tensors created under
`inference_mode` (MODE-6, MODE-7). The context managers restore the previous values on exit, so
they nest (MODE-4), and work as decorators with or without parentheses, of generators too
(MODE-16). Each thread has its own state, which starts in grad mode (THR-1).
"""
import functools
import inspect
import threading


class _State(threading.local):
    """Per thread: a mode entered in one thread leaves the others as they are (THR-1)."""

    def __init__(self):
        self.enabled = True
        self.inference = False


state = _State()


def is_grad_enabled():
    return state.enabled


def is_inference_mode_enabled():
    return state.inference


class _Mode:
    """Base of the grad-mode context managers: set the state on enter, restore it on exit."""

    def _target(self):
        raise NotImplementedError

    def __enter__(self):
        self._saved = (state.enabled, state.inference)
        state.enabled, state.inference = self._target()
        return self

    def __exit__(self, *exc_info):
        state.enabled, state.inference = self._saved

    def __call__(self, func):
        if inspect.isgeneratorfunction(func):
            return self._generator_in_mode(func)

        @functools.wraps(func)
        def run_in_mode(*args, **kwargs):
            with self._fresh():
                return func(*args, **kwargs)
        return run_in_mode

    def _generator_in_mode(self, func):
        """A decorated generator runs each resumption in the mode, and yields back to the caller
        in the caller's own mode (MODE-16): the mode is entered around every resumption, not held.
        A resumption is next() or send(value), which the generator's yield returns, or
        throw(error), which its yield raises; close() runs its cleanup in the mode too."""
        @functools.wraps(func)
        def resume_in_mode(*args, **kwargs):
            with self._fresh():
                generator = func(*args, **kwargs)
            resume, given = generator.send, None
            while True:
                try:
                    with self._fresh():
                        produced = resume(given)
                except StopIteration as stop:
                    return stop.value
                try:
                    resume, given = generator.send, (yield produced)
                except GeneratorExit:
                    with self._fresh():
                        generator.close()
                    raise
                except BaseException as error:  # noqa: BLE001 - thrown in by the caller, passed on
                    resume, given = generator.throw, error
        return resume_in_mode

    def _fresh(self):
        """A new manager of this mode, for one call or one resumption."""
        return self.__class__(*self._arguments())

    def _arguments(self):
        return ()


class _NoArgumentMode(_Mode):
    """Also usable as a bare decorator: `@no_grad` as well as `@no_grad()` (MODE-4, MODE-10)."""

    def __new__(cls, orig_func=None):
        mode = super().__new__(cls)
        return mode if orig_func is None else mode(orig_func)


class no_grad(_NoArgumentMode):
    """Results computed inside do not require grad and have no grad_fn (MODE-1)."""

    def _target(self):
        return False, state.inference


class enable_grad(_NoArgumentMode):
    """Re-enables recording, e.g. inside `no_grad` (MODE-4)."""

    def _target(self):
        return True, state.inference


class set_grad_enabled(_Mode):
    """Switches grad mode at once, so it works as a plain call and as a context manager (MODE-5)."""

    def __init__(self, mode):
        self._mode = bool(mode)
        self._saved = (state.enabled, state.inference)
        state.enabled = self._mode

    def __enter__(self):
        return self

    def _target(self):
        return self._mode, state.inference

    def _arguments(self):
        return (self._mode,)

    def __call__(self, func):
        state.enabled = self._saved[0]  # used as a decorator: the call above must not stick (MODE-11)
        return super().__call__(func)


class inference_mode(_Mode):
    """Grad disabled and results marked as inference tensors (MODE-6). `inference_mode(False)` is
    not a no-op: like torch's, it turns inference mode off and grad mode on, even inside no_grad
    (MODE-12). A function given as `mode` is decorated, so `@inference_mode` works bare."""

    def __new__(cls, mode=True):
        instance = super().__new__(cls)
        if callable(mode):
            instance.__init__()
            return instance(mode)
        return instance

    def __init__(self, mode=True):
        self._mode = bool(mode)

    def _target(self):
        return (False, True) if self._mode else (True, False)

    def _arguments(self):
        return (self._mode,)
