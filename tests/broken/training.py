"""Mutants of the catalog's chapter 'training' (suites/test_training.py): The training loop:
zero_grad, backward, optimizer step."""

import torch

from autograd_conformance.harness.counts import BACKWARD_PASSES
from tests.broken.registry import Namespace, mutant


@mutant("OPT-1")
def torch_sgd_ascends():
    """SGD.step() adds lr * grad instead of subtracting it (gradient ascent)."""
    class SGD(torch.optim.SGD):
        @torch.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for parameter in group["params"]:
                    if parameter.grad is not None:
                        parameter.add_(parameter.grad, alpha=group["lr"])

    optim = Namespace(torch.optim, SGD=SGD)
    return {"SGD": SGD, "optim": optim}


@mutant("OPT-2")
def torch_step_zeroes_grads():
    """optimizer.step() zeroes the gradients after updating (an implicit zero_grad), so gradients
    of several backward passes between steps do not accumulate into one update."""
    class SGD(torch.optim.SGD):
        def step(self, closure=None):
            result = super().step(closure)
            self.zero_grad()
            return result

    class Adam(torch.optim.Adam):
        def step(self, closure=None):
            result = super().step(closure)
            self.zero_grad()
            return result

    optim = Namespace(torch.optim, SGD=SGD, Adam=Adam)
    return {"SGD": SGD, "Adam": Adam, "optim": optim}


@mutant("OPT-2", corner=BACKWARD_PASSES)
def torch_step_zeroes_grads_every_second_step():
    """SGD.step() zeroes the gradients after every second step (a window of two accumulated
    steps), so the gradients of two backward passes add up into one update but a third pass
    starts again from its own gradient."""
    class SGD(torch.optim.SGD):
        steps = 0

        def step(self, closure=None):
            result = super().step(closure)
            self.steps += 1
            if self.steps % 2 == 0:
                self.zero_grad()
            return result

    optim = Namespace(torch.optim, SGD=SGD)
    return {"SGD": SGD, "optim": optim}


@mutant("OPT-3")
def torch_zero_grad_always_none():
    """zero_grad(set_to_none=False) on optimizers and modules still sets grads to None (the
    argument is ignored)."""
    _module_zero_grad = torch.nn.Module.zero_grad
    torch.nn.Module.zero_grad = lambda self, set_to_none=True: _module_zero_grad(self, True)

    class SGD(torch.optim.SGD):
        def zero_grad(self, set_to_none: bool = True):
            super().zero_grad(True)

    class Adam(torch.optim.Adam):
        def zero_grad(self, set_to_none: bool = True):
            super().zero_grad(True)

    optim = Namespace(torch.optim, SGD=SGD, Adam=Adam)
    return {"SGD": SGD, "Adam": Adam, "optim": optim}


@mutant("OPT-3")
def torch_zero_grad_fills_missing_grads():
    """zero_grad(set_to_none=False) on optimizers and modules gives every parameter a zero .grad,
    also those whose .grad was None (it writes zeros instead of zeroing what exists)."""
    def _fill_zeros(parameters, zero_grad, set_to_none):
        if set_to_none:
            return zero_grad(True)
        for parameter in parameters:
            parameter.grad = torch.zeros_like(parameter)

    _module_zero_grad = torch.nn.Module.zero_grad
    torch.nn.Module.zero_grad = lambda self, set_to_none=True: _fill_zeros(
        self.parameters(), lambda flag: _module_zero_grad(self, flag), set_to_none)

    class SGD(torch.optim.SGD):
        def zero_grad(self, set_to_none: bool = True):
            _fill_zeros([p for group in self.param_groups for p in group["params"]],
                        super().zero_grad, set_to_none)

    class Adam(torch.optim.Adam):
        def zero_grad(self, set_to_none: bool = True):
            _fill_zeros([p for group in self.param_groups for p in group["params"]],
                        super().zero_grad, set_to_none)

    optim = Namespace(torch.optim, SGD=SGD, Adam=Adam)
    return {"SGD": SGD, "Adam": Adam, "optim": optim}


@mutant("MOD-13")
def torch_decay_applies_to_gradless_params():
    """step() applies a decoupled weight decay (lr * 0.01) to every parameter, also to those whose
    .grad is None, which torch's optimizers skip."""
    def _decaying(base):
        class Optimizer(base):
            @torch.no_grad()
            def step(self, closure=None):
                for group in self.param_groups:
                    for parameter in group["params"]:
                        if parameter.grad is None:
                            parameter.mul_(1 - group["lr"] * 0.01)
                return super().step(closure)
        Optimizer.__name__ = base.__name__
        return Optimizer

    optim = Namespace(torch.optim, SGD=_decaying(torch.optim.SGD),
                             Adam=_decaying(torch.optim.Adam))
    return {"optim": optim}


def _around_step(base, before, after):
    """`base` (an optimizer class) whose step() runs `before(optimizer)` first and hands what it
    returns to `after` once the step is done."""
    class Optimizer(base):
        def step(self, closure=None):
            kept = before(self)
            try:
                return super().step(closure)
            finally:
                after(kept)
    Optimizer.__name__ = base.__name__
    return Optimizer


def _parameters(optimizer):
    return [p for group in optimizer.param_groups for p in group["params"]]


def _restore_grads(kept):
    for parameter, grad in kept:
        parameter.grad = grad


@mutant("ACC-13")
def torch_step_uses_stale_state():
    """step() also updates a parameter whose .grad is None if it has optimizer state from an
    earlier step, as if its gradient were zero: the momentum buffer or Adam's moments move it."""
    def _zero_grads_where_state(optimizer):
        stale = [p for p in _parameters(optimizer) if p.grad is None and optimizer.state.get(p)]
        for parameter in stale:
            parameter.grad = torch.zeros_like(parameter)
        return [(parameter, None) for parameter in stale]

    optim = Namespace(torch.optim, **{name: _around_step(getattr(torch.optim, name),
                                                         _zero_grads_where_state, _restore_grads)
                                      for name in ("SGD", "Adam")})
    return {"optim": optim}


@mutant("OPT-4")
def torch_step_skips_zero_grads():
    """step() skips a parameter whose .grad is all zeros, as it skips a None grad: weight decay
    and momentum no longer move it."""
    def _hide_zero_grads(optimizer):
        zero = [(p, p.grad) for p in _parameters(optimizer)
                if p.grad is not None and not p.grad.any()]
        for parameter, _ in zero:
            parameter.grad = None
        return zero

    optim = Namespace(torch.optim, **{name: _around_step(getattr(torch.optim, name),
                                                         _hide_zero_grads, _restore_grads)
                                      for name in ("SGD", "Adam")})
    return {"optim": optim}
