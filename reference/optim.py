"""`reference.optim`: SGD (with momentum) and Adam, with torch's update formulas.

`step()` runs under no_grad (MODE-3) and skips parameters whose grad is None (MOD-13);
`zero_grad()` sets grads to None by default (ACC-9).
"""
import math

import numpy as np

from . import grad_mode


def _evaluate(closure):
    """step(closure): the closure recomputes the loss, with grad enabled (torch's contract)."""
    if closure is None:
        return None
    with grad_mode.enable_grad():
        return closure()


class Optimizer:
    def __init__(self, params, defaults):
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        self.defaults = defaults
        self.param_groups = []
        for group in groups:
            group = dict(group)
            group["params"] = list(group["params"])
            for key, value in defaults.items():
                group.setdefault(key, value)
            self.param_groups.append(group)
        self.state = {}

    def zero_grad(self, set_to_none=True):
        """Reset each parameter's grad: to None by default (ACC-9), else zeros in place; a grad that
        is None stays None (OPT-3)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    p._grad._array[...] = 0

    def _params_with_grad(self, group):
        """The parameters step() updates: those whose grad is None are left unchanged (MOD-13),
        even with state (a momentum buffer) from an earlier step (ACC-13); a zero grad is stepped
        like any other, so weight decay and momentum still move its parameter (OPT-4)."""
        return [p for p in group["params"] if p._grad is not None]


class SGD(Optimizer):
    """p -= lr * d_p, d_p being the gradient (plus weight decay) or a momentum buffer of it (OPT-1).

    d_p is read from `.grad`, which backward accumulates into: without zero_grad between steps it
    holds the sum of the gradients of every backward since the last reset (OPT-2).
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, maximize=False):
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize))

    @grad_mode.no_grad()
    def step(self, closure=None):
        loss = _evaluate(closure)
        for group in self.param_groups:
            lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
            for p in self._params_with_grad(group):
                d_p = p._grad._array
                if group["maximize"]:
                    d_p = -d_p
                if group["weight_decay"]:
                    d_p = d_p + group["weight_decay"] * p._array
                if momentum:
                    state = self.state.setdefault(p, {})
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = d_p.copy()
                    else:
                        buf *= momentum
                        buf += d_p if dampening == 0 else (1 - dampening) * d_p
                    d_p = d_p + momentum * buf if group["nesterov"] else buf
                p._array -= lr * d_p
                p._bump_version()
        return loss


class Adam(Optimizer):
    """torch's single-tensor Adam: bias-corrected first and second moments."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False,
                 maximize=False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize))

    @grad_mode.no_grad()
    def step(self, closure=None):
        loss = _evaluate(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps = group["lr"], group["eps"]
            for p in self._params_with_grad(group):
                grad = p._grad._array
                if group["maximize"]:
                    grad = -grad
                if group["weight_decay"]:
                    grad = grad + group["weight_decay"] * p._array
                state = self.state.setdefault(p, {})
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = np.zeros_like(p._array)
                    state["exp_avg_sq"] = np.zeros_like(p._array)
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = np.zeros_like(p._array)
                state["step"] += 1
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                exp_avg += (grad - exp_avg) * (1 - beta1)  # torch's lerp_(grad, 1 - beta1)
                exp_avg_sq *= beta2
                exp_avg_sq += (1 - beta2) * grad * grad
                step = state["step"]
                step_size = lr / (1 - beta1 ** step)
                bias_correction2_sqrt = math.sqrt(1 - beta2 ** step)
                if group["amsgrad"]:
                    np.maximum(state["max_exp_avg_sq"], exp_avg_sq, out=state["max_exp_avg_sq"])
                    denom = np.sqrt(state["max_exp_avg_sq"]) / bias_correction2_sqrt + eps
                else:
                    denom = np.sqrt(exp_avg_sq) / bias_correction2_sqrt + eps
                p._array -= step_size * (exp_avg / denom)
                p._bump_version()
        return loss
