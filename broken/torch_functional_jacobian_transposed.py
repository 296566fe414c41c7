"""Breaks JAC-8. autograd.functional.jacobian returns d input / d output order (the transpose of
torch's output-dims-first layout), a common convention slip."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities



def _jacobian(func, inputs, *args, **kwargs):
    jacobian = torch.autograd.functional.jacobian(func, inputs, *args, **kwargs)
    in_dims = inputs.dim()
    out_dims = jacobian.dim() - in_dims
    order = list(range(out_dims, out_dims + in_dims)) + list(range(out_dims))
    return jacobian.permute(order).contiguous()


autograd = _torch.Namespace(torch.autograd,
                            functional=_torch.Namespace(torch.autograd.functional,
                                                        jacobian=_jacobian))
