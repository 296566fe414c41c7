"""Mutants of the catalog's chapter 'modules' (suites/test_modules.py): nn.Module parameters and
requires_grad."""

import weakref

import torch

from autograd_conformance.harness.counts import SEQUENTIAL_MODULES
from autograd_conformance.reference import grad_mode, nn
from autograd_conformance.reference.ops import inplace, linalg, reductions
from tests.broken import _reference, _torch
from tests.broken.registry import Namespace, mutant


@mutant("MOD-1", "MOD-3")
def torch_params_not_requiring_grad():
    """nn.Linear creates its weight and bias with requires_grad=False, as an engine would whose
    Parameter defaults to requires_grad=False."""
    class Linear(torch.nn.Linear):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            for parameter in self.parameters():
                parameter.requires_grad_(False)

    nn = Namespace(torch.nn, Linear=Linear)
    return {"Linear": Linear, "nn": nn}


@mutant("MOD-1", corner=SEQUENTIAL_MODULES)
def torch_sequential_lists_later_layers_first():
    """A Sequential lists the parameters of its first two submodules that have any in order, and
    those of each later one before them all (inserted at the front from the third on): only three
    or more layers with parameters show it."""
    class Sequential(torch.nn.Sequential):
        def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
            if not recurse:
                return super().named_parameters(prefix, recurse, remove_duplicate)
            groups = []
            for name, child in self.named_children():
                group = list(child.named_parameters(f"{prefix}.{name}" if prefix else name,
                                                    recurse, remove_duplicate))
                if group:
                    groups.insert(len(groups) if len(groups) < 2 else 0, group)
            return iter([each for group in groups for each in group])

    nn = Namespace(torch.nn, Sequential=Sequential)
    return {"nn": nn}


@mutant("MOD-3")
def torch_module_no_grad_for_plain_input():
    """nn.Linear runs its forward under no_grad when its input does not require grad (an "inference
    shortcut"), so net(x) does not require grad although the module has parameters."""
    class Linear(torch.nn.Linear):
        def forward(self, input):
            if not input.requires_grad:
                with torch.no_grad():
                    return super().forward(input)
            return super().forward(input)

    nn = Namespace(torch.nn, Linear=Linear)
    return {"Linear": Linear, "nn": nn}


@mutant("MOD-4")
def torch_loss_detaches_input():
    """nn.MSELoss computes on its input's data (detached), so its output does not require grad even
    when the input does."""
    class MSELoss(torch.nn.MSELoss):
        def forward(self, input, target):
            return super().forward(input.detach(), target)

    nn = Namespace(torch.nn, MSELoss=MSELoss)
    return {"MSELoss": MSELoss, "nn": nn}


@mutant("MOD-5")
def torch_frozen_params_get_zero_grads():
    """backward() gives every parameter of every nn.Linear a grad, zero-filled for frozen
    parameters (an engine that allocates grad buffers for all module parameters), instead of
    leaving frozen parameters' grad None."""
    _modules = weakref.WeakSet()

    class Linear(torch.nn.Linear):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            _modules.add(self)

    def _backward(original, tensor, *args):
        result = original(tensor, *args)
        for module in list(_modules):
            for parameter in module.parameters():
                if parameter.grad is None:
                    parameter.grad = torch.zeros_like(parameter)
        return result

    nn = Namespace(torch.nn, Linear=Linear)
    _torch.patch_backward(_backward)
    return {"Linear": Linear, "nn": nn}


@mutant("MOD-14")
def reference_linear_bias_grad_unsummed_mean():
    """nn.Linear's bias gradient averages v over the batch instead of summing it (a bias shared by
    every row gets the mean of their gradients)."""
    _backward = linalg.AddmmBackward0.backward

    def _averaged_bias(self, grad):
        bias, *rest = _backward(self, grad)
        rows = grad.shape[0] if len(grad.shape) == 2 else 1
        return (None if bias is None else bias / rows, *rest)

    linalg.AddmmBackward0.backward = _averaged_bias


@mutant("MOD-15")
def reference_mse_loss_without_factor_two():
    """MSELoss's gradient forgets the 2 of d(d^2) = 2d: it is (input - target) / n, half of
    torch's."""
    _backward = reductions.MseLossBackward0.backward

    def _halved(self, grad):
        return tuple(None if g is None else g * 0.5 for g in _backward(self, grad))

    reductions.MseLossBackward0.backward = _halved


@mutant("MOD-2")
def reference_parameter_always_requires_grad():
    """nn.Parameter ignores requires_grad=False: every parameter requires grad."""
    _new = nn.Parameter.__new__

    def _requiring(cls, data=None, requires_grad=True):
        return _new(cls, data, True)

    nn.Parameter.__new__ = staticmethod(_requiring)


@mutant("MOD-6")
def reference_module_output_always_requires_grad():
    """A layer with parameters marks its output as requiring grad whatever their flags (MOD-3
    applied without looking at them): with every parameter frozen and a plain input, the output
    is a leaf that requires grad and backward on it runs instead of raising."""
    _forward = nn.Linear.forward

    def _marked(self, x):
        out = _forward(self, x)
        return out if out.requires_grad else out.requires_grad_()

    nn.Linear.forward = _marked


@mutant("MOD-7")
def reference_frozen_layers_run_under_no_grad():
    """A layer whose parameters are all frozen runs under no_grad: its output is a constant, so the
    gradient no longer reaches the trainable layers before it."""
    _forward = nn.Linear.forward

    def _frozen_under_no_grad(self, x):
        if any(p.requires_grad for p in self.parameters()):
            return _forward(self, x)
        with grad_mode.no_grad():
            return _forward(self, x)

    nn.Linear.forward = _frozen_under_no_grad


@mutant("MOD-8")
def reference_module_requires_grad_not_recursive():
    """Module.requires_grad_ sets the flags of the module's own parameters only, not those of its
    submodules (a Sequential has none of its own)."""
    def _own_parameters_only(self, requires_grad=True):
        for p in self._parameters.values():
            if p is not None:
                p.requires_grad_(requires_grad)
        return self

    nn.Module.requires_grad_ = _own_parameters_only


@mutant("MOD-9")
def reference_module_zero_grad_skips_frozen():
    """Module.zero_grad clears the grads of the parameters that require grad only: a parameter
    frozen after a backward keeps its old gradient."""
    def _trainable_only(self, set_to_none=True):
        for p in self.parameters():
            if not p.requires_grad or p._grad is None:
                continue
            if set_to_none:
                p._grad = None
            else:
                p._grad._array[...] = 0

    nn.Module.zero_grad = _trainable_only


@mutant("MOD-10")
def reference_buffers_registered_as_parameters():
    """register_buffer registers the tensor as a Parameter (one registry for every tensor of a
    module): the buffer requires grad, is listed by parameters() and gets a gradient."""
    def _as_a_parameter(self, name, tensor):
        setattr(self, name, nn.Parameter(tensor))

    nn.Module.register_buffer = _as_a_parameter


@mutant("MOD-11")
def reference_eval_freezes_parameters():
    """eval() (train(False)) also freezes every parameter, as if evaluation mode were inference
    without gradients; train() unfreezes them."""
    _train = nn.Module.train

    def _train_and_set_flags(self, mode=True):
        _train(self, mode)
        for p in self.parameters():
            p.requires_grad_(mode)
        return self

    nn.Module.train = _train_and_set_flags


@mutant("MOD-12")
def reference_parameters_updatable_in_place():
    """Parameters are exempt from the in-place check on leaves that require grad (so that an
    optimizer could update them without no_grad): p.add_(1.0) in grad mode changes the parameter
    instead of raising."""
    def _exempting_parameters(check):
        def check_inplace(a, leaf_message, *operands):
            if not isinstance(a, nn.Parameter):
                check(a, leaf_message, *operands)
        return check_inplace

    _reference.replace(inplace, "_check_inplace", _exempting_parameters)
