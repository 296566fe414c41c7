"""Mutants of the catalog's chapter 'training' (suites/test_training.py): The training loop:
zero_grad, backward, optimizer step."""

import torch

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
