"""Activation checkpointing, `utils.checkpoint.checkpoint(fn, *args, use_reentrant=...)` (CKPT-*):
fn's intermediate results are not kept for backward but computed again when backward needs them.

Both of torch's forms, built the way torch builds them:
- use_reentrant=False records fn's graph as usual, inside saved-tensor hooks of its own: a saved
  tensor is kept as a number, and the first time backward needs one, fn runs again, with grad, to
  give them all back (`_Recomputation`). The graph reaches everything fn used, so autograd.grad
  and backward(inputs=...) work (CKPT-4), and leaves fn takes from its closure get gradients.
- use_reentrant=True is a custom Function (`CheckpointFunction`): forward runs fn without recording;
  its backward runs fn again with grad and a backward of its own from inside the outer one, which
  accumulates into .grad, so it cannot serve autograd.grad (CKPT-6).
Either way the recomputation starts the global generator where fn's forward found it (CKPT-5).

Known limit: as any saved tensor behind hooks (graph.Packed), the tensors fn saves stay referenced
by the graph for their version check and grad_fn; only their values come from the recomputation.
"""
import contextlib
import warnings

from .. import creation, grad_mode, walk
from ..autograd.function import Function
from ..autograd.gradients import backward
from ..autograd.graph import saved_tensors_hooks
from ..tensor import Tensor

REENTRANT_GRAD_MESSAGE = (
    "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an `inputs` "
    "parameter to .backward(). To resolve this error, you can either set use_reentrant=False, or call "
    ".backward() without passing the `inputs` argument.")
NO_INPUT_REQUIRES_GRAD = "None of the inputs have requires_grad=True. Gradients will be None"
NO_USE_REENTRANT = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but "
    "if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for "
    "more details on the differences between the two variants.")
_SAVED = object()  # in a reentrant call's arguments: the place of a tensor, which ctx saves


def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True, **kwargs):
    """function(*args, **kwargs), its intermediate results computed again in backward (CKPT-1).
    Without use_reentrant, torch 2.13 warns and takes the reentrant form."""
    if use_reentrant is None:
        warnings.warn(NO_USE_REENTRANT, UserWarning, stacklevel=2)
        use_reentrant = True
    rng = creation.random_state() if preserve_rng_state else None
    if not use_reentrant:
        recomputation = _Recomputation(function, args, kwargs, rng)
        with saved_tensors_hooks(recomputation.pack, recomputation.unpack):
            return function(*args, **kwargs)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    return CheckpointFunction.apply(function, rng, *args)


@contextlib.contextmanager
def _replaying(rng):
    """The block draws from the generator as fn's forward did, and the code after it as if the
    block had drawn nothing (CKPT-5); rng None (preserve_rng_state=False) replays nothing."""
    if rng is None:
        yield
        return
    now = creation.random_state()
    creation.set_random_state(rng)
    try:
        yield
    finally:
        creation.set_random_state(now)


def _detached(args):
    """fn's arguments cut from the graph, for a recomputation: a tensor becomes a new leaf that
    requires grad as the argument did, so fn's ops record (and save) as they did in forward."""
    return [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a for a in args]


class _Recomputation:
    """The saved-tensor hooks of one non-reentrant call: pack keeps a saved tensor's number only,
    not the tensor (CKPT-3); the first unpack runs fn again, with grad, and collects what its ops
    save, in the same order (CKPT-2)."""

    def __init__(self, function, args, kwargs, rng):
        self.function, self.args, self.kwargs, self.rng = function, args, kwargs, rng
        self.count = 0
        self.recomputed = None

    def pack(self, tensor):
        self.count += 1
        return self.count - 1

    def unpack(self, number):
        if self.recomputed is None:
            self.recomputed = self._recompute()
        return self.recomputed[number]

    def _recompute(self):
        saved = []
        with (_replaying(self.rng), grad_mode.enable_grad(),
              saved_tensors_hooks(lambda t: saved.append(t), lambda _: None)):
            self.function(*_detached(self.args), **self.kwargs)
        return saved


class CheckpointFunction(Function):
    """use_reentrant=True: a Function (its node CheckpointFunctionBackward, as torch's) of fn and
    its tensor arguments, which it saves; fn runs without recording in forward."""

    @staticmethod
    def forward(ctx, function, rng, *args):
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):  # CKPT-8
            warnings.warn(NO_INPUT_REQUIRES_GRAD, UserWarning, stacklevel=5)
        ctx.function, ctx.rng = function, rng
        ctx.arguments = [_SAVED if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        return function(*args)

    @staticmethod
    def backward(ctx, *grads):
        """Run fn again with grad on the detached arguments and backpropagate through it: the
        leaves it uses accumulate their .grad, the arguments' gradients go on to the outer graph.
        Inside autograd.grad or backward(inputs=...) nothing may accumulate: refused (CKPT-6)."""
        if walk.current_pass().targets:
            raise RuntimeError(REENTRANT_GRAD_MESSAGE)
        tensors = iter(ctx.saved_tensors)
        inputs = _detached([next(tensors) if a is _SAVED else a for a in ctx.arguments])
        with _replaying(ctx.rng), grad_mode.enable_grad():
            outputs = ctx.function(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(out, g) for out, g in zip(outputs, grads) if isinstance(out, Tensor) and out.requires_grad]
        backward([out for out, _ in pairs], [g for _, g in pairs])
        return (None, None, *(a.grad if isinstance(a, Tensor) else None for a in inputs))
