"""Broken engines for the harness's own tests, made from torch: every tensor is a torch.Tensor
subclass that overrides one or two things. Not engines anyone should test; they exist to fail."""

import sys

import numpy as np
import torch

from autograd_conformance.adapters import torch_adapter


def engine_module(module_name: str, tensor_class: type, *, version: str = "0.0-broken") -> None:
    """Turn module `module_name` into an adapter: torch's namespace whose factories return
    `tensor_class`, with the torch adapter's capabilities."""
    module = sys.modules[module_name]

    def factory(make):
        def create(*args, **kwargs):
            requires_grad = kwargs.pop("requires_grad", False)
            tensor = make(*args, **kwargs).as_subclass(tensor_class)
            return tensor.requires_grad_(requires_grad)
        return create

    module.name = module_name.rsplit(".", 1)[-1].replace("_", "-")
    module.version = version
    module.capabilities = torch_adapter.capabilities
    for factory_name in ("tensor", "zeros", "ones"):
        setattr(module, factory_name, factory(getattr(torch, factory_name)))
    module.to_numpy = lambda tensor: np.asarray(tensor.detach().cpu().numpy())
    module.__getattr__ = lambda attribute: getattr(torch, attribute)
