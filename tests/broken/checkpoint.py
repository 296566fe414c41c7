"""Mutants of the catalog's chapter 'checkpoint' (suites/test_checkpoint.py): activation
checkpointing, torch.utils.checkpoint."""

import contextlib

from autograd_conformance.harness.counts import CHECKPOINT_OUTPUTS
from autograd_conformance.reference import creation, grad_mode, walk
from autograd_conformance.reference.hooks import saved_tensor_hooks
from autograd_conformance.reference.utils import checkpoint
from tests.broken.registry import Namespace, mutant


@mutant("CKPT-1")
def reference_checkpoint_recomputes_under_no_grad():
    """The recomputation in backward runs fn without recording: the reentrant form's inner
    backward has nothing to pass through, so the gradients of fn's arguments and closure leaves
    vanish (and the non-reentrant form finds none of the tensors it needs)."""
    checkpoint.grad_mode = Namespace(grad_mode, enable_grad=grad_mode.no_grad)


@mutant("CKPT-1", corner=CHECKPOINT_OUTPUTS)
def reference_checkpoint_reentrant_backpropagates_the_first_output():
    """The reentrant form's backward runs fn again but backpropagates the gradient of its first
    output only: right for a function of one output, while the other outputs' gradients never
    reach the leaves."""
    backward = checkpoint.backward
    checkpoint.backward = lambda outputs, grads: backward(outputs[:1], grads[:1])


@mutant("CKPT-2", "CKPT-3")
def reference_checkpoint_keeps_intermediates():
    """use_reentrant=False is a plain call: fn's ops save their tensors as usual and backward never
    calls fn again."""
    original = checkpoint.checkpoint

    def plain_when_not_reentrant(function, *args, use_reentrant=None, **kwargs):
        if use_reentrant is False:
            return function(*args, **kwargs)
        return original(function, *args, use_reentrant=use_reentrant, **kwargs)

    checkpoint.checkpoint = plain_when_not_reentrant


@mutant("CKPT-3")
def reference_checkpoint_packs_through_outer_hooks():
    """use_reentrant=False also hands each tensor fn saves to the pack hook open around the call
    (dropping what it returns): fn is still recomputed, but the hook sees its intermediates."""
    original = checkpoint._Recomputation.pack

    def pack(self, tensor):
        if len(saved_tensor_hooks.stack) > 1:
            saved_tensor_hooks.stack[-2][0](tensor)
        return original(self, tensor)

    checkpoint._Recomputation.pack = pack


@mutant("CKPT-4", "CKPT-8")
def reference_checkpoint_always_reentrant():
    """use_reentrant=False takes the reentrant form: autograd.grad and backward(inputs=...) are
    refused, and leaves fn takes from its closure get no gradient when no argument requires grad."""
    original = checkpoint.checkpoint

    def reentrant(function, *args, use_reentrant=None, **kwargs):
        return original(function, *args, use_reentrant=True, **kwargs)

    checkpoint.checkpoint = reentrant


@mutant("CKPT-5")
def reference_checkpoint_forgets_the_generator_state():
    """use_reentrant=False recomputes fn from wherever the global generator is at backward, not
    from where fn's forward found it (the reentrant form still replays it)."""
    original = checkpoint._Recomputation.__init__

    def without_state(self, function, args, kwargs, rng):
        original(self, function, args, kwargs, None)

    checkpoint._Recomputation.__init__ = without_state


@mutant("CKPT-5")
def reference_checkpoint_leaves_the_generator_replayed():
    """The recomputation replays fn's draws but leaves the generator where they ended, so the code
    after backward draws other values than it would have without checkpointing."""
    @contextlib.contextmanager
    def replaying_without_restoring(rng):
        if rng is not None:
            creation.set_random_state(rng)
        yield

    checkpoint._replaying = replaying_without_restoring


@mutant("CKPT-6", "CKPT-7")
def reference_checkpoint_reentrant_accepts_targets():
    """The reentrant form runs its inner backward inside autograd.grad and backward(inputs=...)
    too, instead of refusing them."""
    checkpoint.walk = Namespace(walk, current_pass=lambda: Namespace(walk.current_pass(),
                                                                     targets={}))


@mutant("CKPT-7")
def reference_checkpoint_refusal_reworded():
    """The reentrant form refuses autograd.grad with an older wording of torch's message."""
    checkpoint.REENTRANT_GRAD_MESSAGE = (
        "Checkpointing is not compatible with .grad() or when an `inputs` parameter is passed to "
        ".backward(). Please use .backward() and do not pass its `inputs` argument.")


@mutant("CKPT-8")
def reference_checkpoint_reentrant_does_not_warn():
    """The reentrant form says nothing when no argument requires grad, although its output then
    does not require grad."""
    checkpoint.warnings = Namespace(checkpoint.warnings, warn=lambda *args, **kwargs: None)


@mutant("CKPT-6")
def reference_checkpoint_defaults_to_non_reentrant():
    """Without use_reentrant, checkpoint warns as torch does but takes the non-reentrant form,
    which serves autograd.grad and backward(inputs=...) instead of refusing them."""
    original = checkpoint.checkpoint

    def non_reentrant_by_default(function, *args, use_reentrant=None, **kwargs):
        if use_reentrant is None:
            checkpoint.warnings.warn(checkpoint.NO_USE_REENTRANT, UserWarning, stacklevel=2)
            use_reentrant = False
        return original(function, *args, use_reentrant=use_reentrant, **kwargs)

    checkpoint.checkpoint = non_reentrant_by_default
