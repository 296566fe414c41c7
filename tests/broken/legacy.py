"""Mutants of the catalog's chapter 'legacy' (suites/test_legacy.py): Removed API names the seeds
use."""

import torch

from tests.broken.registry import Namespace, mutant


@mutant("RETAIN-10")
def torch_retain_variables_accepted():
    """backward() still accepts retain_variables= (the removed old name of retain_graph) instead of
    raising TypeError."""
    _backward = torch.Tensor.backward

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None,
                 retain_variables=None):
        if retain_variables is not None and retain_graph is None:
            retain_graph = retain_variables
        return _backward(self, gradient, retain_graph, create_graph, inputs)

    torch.Tensor.backward = backward
    return {"backward": backward}


@mutant("RETAIN-12")
def torch_volatile_keeps_its_old_meaning():
    """Tensor.volatile as before torch 0.4: a flag of the tensor's own, read and set without a
    warning, and setting it True stops recording (the tensor no longer requires grad); torch 2.13
    reads False with a UserWarning and ignores an assignment. (An adapter without `volatile` at
    all has RETAIN-12's test skipped, naming the name: a missing name is not a wrong behaviour.)"""
    def _get(self):
        return getattr(self, "_mutant_volatile", False)

    def _set(self, value):
        self._mutant_volatile = value
        if value:
            self.requires_grad_(False)

    torch.Tensor.volatile = property(_get, _set)


@mutant("RETAIN-13")
def torch_variable_ignores_volatile():
    """autograd.Variable(t, requires_grad=..., volatile=...) silently ignores volatile (no warning,
    no ValueError with requires_grad=True)."""
    def _variable(data, requires_grad=False, volatile=False):
        return data.detach().requires_grad_(requires_grad)

    autograd = Namespace(torch.autograd, Variable=_variable)
    return {"autograd": autograd}
