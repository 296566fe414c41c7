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
def torch_volatile_removed():
    """Tensor.volatile is gone altogether: reading or setting it raises AttributeError (torch keeps
    it as a deprecated attribute that warns)."""
    def _missing(self, *args):
        raise AttributeError("'Tensor' object has no attribute 'volatile'")

    torch.Tensor.volatile = property(_missing, _missing)


@mutant("RETAIN-13")
def torch_variable_ignores_volatile():
    """autograd.Variable(t, requires_grad=..., volatile=...) silently ignores volatile (no warning,
    no ValueError with requires_grad=True)."""
    def _variable(data, requires_grad=False, volatile=False):
        return data.detach().requires_grad_(requires_grad)

    autograd = Namespace(torch.autograd, Variable=_variable)
    return {"autograd": autograd}
