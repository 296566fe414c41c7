"""Breaks HO-4. Gradients are differentiable once but not twice: autograd.grad(create_graph=True)
of something computed from a gradient that a create_graph backward returned ignores create_graph,
as in an engine whose backward formulas support double backward only."""

import torch

from broken import _torch
from broken._torch import delegate as __getattr__  # noqa: F401 - the rest is torch

name = __name__.rpartition(".")[2]
version = _torch.version
capabilities = _torch.capabilities

_ORDERS = {}     # id of a returned gradient's grad_fn -> how many backward passes made it
_KEPT = []       # those grad_fns, kept alive so that their ids stay theirs


def _order_of(outputs):
    """The most backward passes behind any node the outputs' graph reaches."""
    seen, order = set(), 0
    stack = [output.grad_fn for output in outputs]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        order = max(order, _ORDERS.get(id(node), 0))
        stack.extend(next_node for next_node, _ in node.next_functions)
    return order


def _grad(outputs, inputs, *args, create_graph=False, **kwargs):
    order = _order_of([outputs] if isinstance(outputs, torch.Tensor) else list(outputs)) + 1
    grads = torch.autograd.grad(outputs, inputs, *args, create_graph=create_graph and order < 2,
                                **kwargs)
    for grad in grads:
        if grad is not None and grad.grad_fn is not None:
            _ORDERS[id(grad.grad_fn)] = order
            _KEPT.append(grad.grad_fn)
    return grads


autograd = _torch.Namespace(torch.autograd, grad=_grad)
